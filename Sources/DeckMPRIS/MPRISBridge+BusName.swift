import CSystemd
import Glibc

extension MPRISBridge {
    /// Asks for `name` without waiting in the bus's queue. When another process holds it (a second
    /// deckd on the session), asks for `name.instance<pid>`, as MPRIS has a second instance do.
    func requestName() -> Int32 {
        sd_bus_request_name_async(bus, nil, name, 0, { reply, context, _ in
            guard let reply, let context else { return 0 }
            Unmanaged<MPRISBridge>.fromOpaque(context).takeUnretainedValue().nameAnswered(reply)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    private func nameAnswered(_ reply: OpaquePointer) {
        if let error = sd_bus_message_get_error(reply), let errorName = error.pointee.name {
            let detail = error.pointee.message.map { String(cString: $0) } ?? ""
            return logger.error("mpris", "cannot own \(name): \(String(cString: errorName)) \(detail)")
        }
        // RequestName's answer: 1 the owner now, 3 held by another, 4 ours already.
        var answer: UInt32 = 0
        _ = sd_bus_message_read_basic(reply, DBusWriter.type("u"), &answer)
        let instance = ".instance\(getpid())"
        switch answer {
        case 1, 4:
            logger.info("mpris", "on the session bus as \(name)")
        case 3 where !name.hasSuffix(instance):
            logger.info("mpris", "\(name) is held by another process; asking for \(name + instance)")
            name += instance
            let status = requestName()
            if status < 0 { logger.error("mpris", "cannot ask for \(name): \(String(cString: strerror(-status)))") }
        default:
            logger.error("mpris", "cannot own \(name): the bus answered \(answer)")
        }
    }
}
