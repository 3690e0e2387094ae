import CSystemd
import DeckBase
import DeckNowPlaying
import Glibc

/// Now playing as an MPRIS player on the D-Bus session bus (`org.mpris.MediaPlayer2.deck`, or one
/// player per audio zone, `org.mpris.MediaPlayer2.deck.<zone>`), so
/// playerctl and every MPRIS client work unchanged. sd-bus runs on the loop through its
/// descriptor and timeout; remote commands go through the runtime's router and are answered
/// when the owner answers. Loop-thread-confined.
public final class MPRISBridge {
    public static let busName = "org.mpris.MediaPlayer2.deck"
    /// The name this player owns on the bus: the one asked for, or with `.instance<pid>` when
    /// another process holds that.
    public internal(set) var name: String
    /// How MPRIS clients show the player (`Identity`).
    let identity: String
    static let objectPath = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"

    /// Routes a command to the owner; the reply says whether it succeeded, or why not.
    public typealias Router = (RemoteCommand, @escaping (Result<Void, MPRISError>) -> Void) -> Void

    let center: NowPlayingCenter
    let loop: EventLoop
    let logger: Logger
    private let route: Router
    private(set) var bus: OpaquePointer?
    private var objectSlot: OpaquePointer?
    private let watcher: FileWatcher
    private let timer: LoopTimer
    /// Where `mpris:artUrl` points when the owner handed over bytes rather than a URI.
    let artworkFile: ArtworkFile
    /// Player properties as last announced, to send only what changed.
    private var announced: [(String, DBusValue)] = []
    /// The position anchor last announced, to tell a seek from playback moving on.
    private var anchor = (elapsed: 0.0, rate: 0.0, at: UInt64(0))
    /// True inside `sd_bus_process`, which must not be entered again (a command answered at once
    /// replies from inside it); what was queued meanwhile goes out when it returns.
    private var isProcessing = false
    /// Commands each bus peer has waiting on the owner's answer.
    private var inFlight: [String: Int] = [:]
    /// Why a bus peer may not use the player, by its process and uid (a plugin's: plugins reach
    /// the runtime only through their host); nil lets every peer of the session bus.
    public var peerRefusal: ((pid_t, uid_t) -> String?)?
    /// Whether a plugin may be on this bus now (its host shares the runtime's uid and may make Unix
    /// sockets); only then is each new peer asked about, since a caller that does not wait for its
    /// answer may be gone before the bus says who it was, and is then refused.
    public var pluginsMayCall: () -> Bool = { true }
    /// Each peer's verdict, by its unique name (never reused on a bus), once the bus said who it is.
    private var verdicts: [String: String?] = [:]
    /// Calls held while the bus is asked who their peer is, by peer; and the asking calls' cookies.
    private var held: [String: [OpaquePointer]] = [:]
    private var asking: [UInt64: String] = [:]
    /// Refusals are logged at most once in 10 s (a plugin may reconnect again and again).
    private var refusals = LogThrottle()
    /// At most this many peers' verdicts are kept; past it they are asked again.
    static let verdictsKept = 4_096
    /// At most this many messages are dispatched in one loop turn; the rest wait for the next.
    static let messagesPerTurn = 16
    /// At most this many commands from one peer wait on the owner; more are refused (LimitsExceeded).
    static let commandsPerPeer = 8

    /// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`) and asks for the bus name `name`.
    public init(center: NowPlayingCenter, name: String = MPRISBridge.busName, identity: String = "Deck", loop: EventLoop, logger: Logger,
                route: @escaping Router) throws(MPRISError) {
        self.center = center
        self.name = name
        self.identity = identity
        self.loop = loop
        self.logger = logger
        self.route = route
        artworkFile = ArtworkFile(logger: logger)
        var bus: OpaquePointer?
        let opened = sd_bus_open_user(&bus)
        guard opened >= 0, let bus else { throw .bus("cannot connect to the session bus: \(String(cString: strerror(-opened)))") }
        self.bus = bus
        do {
            watcher = try FileWatcher(loop: loop, fileDescriptor: sd_bus_get_fd(bus))
            timer = try LoopTimer(loop: loop)
        } catch {
            sd_bus_flush_close_unref(bus)
            throw .bus(error.description)
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        var status = sd_bus_add_object(bus, &objectSlot, MPRISBridge.objectPath, { message, context, _ in
            guard let message, let context else { return 0 }
            return Unmanaged<MPRISBridge>.fromOpaque(context).takeUnretainedValue().handle(message)
        }, context)
        if status >= 0 { status = requestName() }
        guard status >= 0 else {
            close()
            throw .bus("cannot serve \(MPRISBridge.objectPath): \(String(cString: strerror(-status)))")
        }
        announced = playerProperties()
        process()
    }

    /// The center changed: announces the player properties that changed, and `Seeked` for a jump.
    public func changed() {
        guard let bus else { return }
        let current = playerProperties()
        let changed = current.filter { name, value in name != "Position" && announced.first { $0.0 == name }?.1 != value }
        announced = current
        if !changed.isEmpty { emitPropertiesChanged(changed) }
        let now = loop.now
        let expected = anchor.elapsed + Double(now > anchor.at ? now - anchor.at : 0) / 1000 * anchor.rate
        let position = center.info.elapsed(at: now)
        if abs(position - expected) > 0.5 {
            if let signal = newSignal(bus, MPRISBridge.playerInterface, "Seeked") {
                var writer = DBusWriter(signal)
                writer.append(.int64(MediaTime(clamping: position).microseconds))
                send(signal, status: writer.status)
            }
        }
        anchor = (position, center.info.effectiveRate, now)
        process()
    }

    public func close() {
        watcher.close()
        timer.close()
        artworkFile.close()
        held.values.joined().forEach { sd_bus_message_unref($0) }
        held = [:]
        asking = [:]
        if let objectSlot { sd_bus_slot_unref(objectSlot) }
        objectSlot = nil
        if let bus { sd_bus_flush_close_unref(bus) }
        bus = nil
    }

    // MARK: The loop

    /// Lets sd-bus read, dispatch and write what it can, then waits for what it needs next.
    /// Dispatches at most `messagesPerTurn` messages: a peer that floods the bus waits for the next
    /// loop turn rather than holding this one.
    private func process() {
        guard let bus, !isProcessing else { return }
        var dispatched = 0
        while true {
            isProcessing = true
            let status = sd_bus_process(bus, nil)
            isProcessing = false
            if status < 0 {
                logger.error("mpris", "the session bus connection failed: \(String(cString: strerror(-status))); MPRIS is off")
                return close()
            }
            if status == 0 { break }
            dispatched += 1
            if dispatched == MPRISBridge.messagesPerTurn {
                // One millisecond: the other clients' and plugins' events are polled first.
                return timer.start(after: 1) { [unowned self] in process() }
            }
        }
        watcher.start(writable: sd_bus_get_events(bus) & Int32(POLLOUT) != 0) { [unowned self] in process() }
        var deadline: UInt64 = 0
        if sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max {
            let nowMicroseconds = UInt64(MonotonicClock.microseconds)
            timer.start(after: deadline > nowMicroseconds ? (deadline - nowMicroseconds) / 1_000 + 1 : 0) { [unowned self] in process() }
        } else {
            timer.stop()
        }
    }

    // MARK: Calls

    /// A call to the player: answered at once for a peer the bus has named, held for one it is
    /// being asked about, refused for a plugin's.
    private func handle(_ message: OpaquePointer) -> Int32 {
        guard sd_bus_message_is_method_call(message, nil, nil) > 0 else { return 0 }
        guard peerRefusal != nil, pluginsMayCall(), let sender = sd_bus_message_get_sender(message).map({ String(cString: $0) }) else {
            return dispatch(message)
        }
        if let verdict = verdicts[sender] {
            return verdict.map { fail(message, "org.freedesktop.DBus.Error.AccessDenied", $0) } ?? dispatch(message)
        }
        if held[sender] == nil {
            guard ask(about: sender) else {
                return fail(message, "org.freedesktop.DBus.Error.Failed", "the bus could not be asked who \(sender) is")
            }
            held[sender] = []
        }
        guard held[sender, default: []].count < MPRISBridge.commandsPerPeer else {
            return fail(message, "org.freedesktop.DBus.Error.LimitsExceeded",
                        "\(MPRISBridge.commandsPerPeer) calls from \(sender) are waiting; try again when they are answered")
        }
        sd_bus_message_ref(message)
        held[sender, default: []].append(message)
        return 1
    }

    /// Asks the bus for `sender`'s process and uid (GetConnectionCredentials); false when the
    /// call could not be sent.
    private func ask(about sender: String) -> Bool {
        guard let bus else { return false }
        var call: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &call, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                             "GetConnectionCredentials") >= 0, let call else { return false }
        defer { sd_bus_message_unref(call) }
        var writer = DBusWriter(call)
        writer.append(.string(sender))
        var cookie: UInt64 = 0
        guard writer.status >= 0,
              sd_bus_call_async(bus, nil, call, { reply, context, _ in
                  guard let reply, let context else { return 0 }
                  Unmanaged<MPRISBridge>.fromOpaque(context).takeUnretainedValue().answered(reply)
                  return 1
              }, Unmanaged.passUnretained(self).toOpaque(), 0) >= 0,
              sd_bus_message_get_cookie(call, &cookie) >= 0 else { return false }
        asking[cookie] = sender
        return true
    }

    /// The bus said who a peer is: its verdict is kept, and its held calls answered by it.
    private func answered(_ reply: OpaquePointer) {
        var cookie: UInt64 = 0
        guard sd_bus_message_get_reply_cookie(reply, &cookie) >= 0, let sender = asking.removeValue(forKey: cookie) else { return }
        let verdict: String?
        if sd_bus_message_is_method_error(reply, nil) == 0, let peer = DBusReader(message: reply).credentials() {
            verdict = peerRefusal?(peer.pid, peer.uid)
        } else {
            verdict = "the bus did not say which process \(sender) is (gone already? a caller that waits for the answer is always asked about in time)"
        }
        if verdicts.count >= MPRISBridge.verdictsKept { verdicts.removeAll() }
        verdicts[sender] = verdict
        if let verdict, case let (log, held) = refusals.admit(now: loop.now), log {
            logger.warning("mpris", "refused \(sender): \(verdict)\(LogThrottle.suffix(held))")
        }
        for message in held.removeValue(forKey: sender) ?? [] {
            if let verdict {
                _ = fail(message, "org.freedesktop.DBus.Error.AccessDenied", verdict)
            } else if dispatch(message) == 0 {
                _ = fail(message, "org.freedesktop.DBus.Error.UnknownMethod", "no such method")
            }
            sd_bus_message_unref(message)
        }
    }

    private func dispatch(_ message: OpaquePointer) -> Int32 {
        guard let interface = sd_bus_message_get_interface(message).map({ String(cString: $0) }),
              let member = sd_bus_message_get_member(message).map({ String(cString: $0) }) else { return 0 }
        let reader = DBusReader(message: message)
        switch (interface, member) {
        case ("org.freedesktop.DBus.Introspectable", "Introspect"):
            reply(message, [.string(MPRISBridge.introspection)])
        case ("org.freedesktop.DBus.Properties", "Get"):
            guard let name = reader.string(), let property = reader.string(),
                  let value = properties(of: name)?.first(where: { $0.0 == property })?.1 else {
                return fail(message, "org.freedesktop.DBus.Error.UnknownProperty", "no such property")
            }
            replyVariant(message, value)
        case ("org.freedesktop.DBus.Properties", "GetAll"):
            guard let name = reader.string(), let all = properties(of: name) else {
                return fail(message, "org.freedesktop.DBus.Error.UnknownInterface", "no such interface")
            }
            reply(message, [.dictionary(all)])
        case ("org.freedesktop.DBus.Properties", "Set"):
            guard reader.string() == MPRISBridge.playerInterface, let property = reader.string(), let value = reader.variant() else {
                return fail(message, "org.freedesktop.DBus.Error.PropertyReadOnly", "this property cannot be set")
            }
            switch MPRISBridge.command(setting: property, to: value) {
            case .run(let command): run(command, answering: message)
            case .invalid(let reason): return fail(message, "org.freedesktop.DBus.Error.InvalidArgs", reason)
            case .ignore, .unknown: return fail(message, "org.freedesktop.DBus.Error.PropertyReadOnly", "\(property) cannot be set")
            }
        case (MPRISBridge.rootInterface, "Raise"), (MPRISBridge.rootInterface, "Quit"):
            reply(message, [])
        case (MPRISBridge.playerInterface, let name):
            switch playerCommand(name, reader) {
            case .run(let command): run(command, answering: message)
            case .ignore: reply(message, [])
            case .invalid(let reason): return fail(message, "org.freedesktop.DBus.Error.InvalidArgs", reason)
            case .unknown: return fail(message, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(name)")
            }
        default:
            return 0
        }
        return 1
    }

    private func playerCommand(_ name: String, _ reader: DBusReader) -> PlayerCall {
        var arguments: [DBusValue] = []
        switch name {
        case "Seek":
            if let offset = reader.int64() { arguments = [.int64(offset)] }
        case "SetPosition":
            if let track = reader.string("o") {
                arguments = [.objectPath(track)]
                if let position = reader.int64() { arguments.append(.int64(position)) }
            }
        default: break
        }
        return MPRISBridge.decide(name, arguments, trackID: trackID)
    }

    /// Sends `command` to the owner; the D-Bus call is answered when the owner answers. A peer with
    /// `commandsPerPeer` commands waiting is refused until they are answered.
    private func run(_ command: RemoteCommand, answering message: OpaquePointer) {
        let peer = sd_bus_message_get_sender(message).map { String(cString: $0) } ?? ""
        guard inFlight[peer, default: 0] < MPRISBridge.commandsPerPeer else {
            _ = fail(message, "org.freedesktop.DBus.Error.LimitsExceeded",
                     "\(MPRISBridge.commandsPerPeer) commands from \(peer) are waiting for the player; try again when they are answered")
            return
        }
        inFlight[peer, default: 0] += 1
        sd_bus_message_ref(message)
        route(command) { [weak self] result in
            defer { sd_bus_message_unref(message) }
            guard let self else { return }
            inFlight[peer, default: 1] -= 1
            if inFlight[peer] == 0 { inFlight[peer] = nil }
            guard bus != nil else { return }
            switch result {
            case .success: reply(message, [])
            case .failure(let error): _ = fail(message, "org.mpris.MediaPlayer2.deck.CommandFailed", error.description)
            }
            process()
        }
    }

    private func reply(_ message: OpaquePointer, _ values: [DBusValue]) {
        var answer: OpaquePointer?
        guard sd_bus_message_new_method_return(message, &answer) >= 0, let answer else { return }
        var writer = DBusWriter(answer)
        values.forEach { writer.append($0) }
        send(answer, status: writer.status)
    }

    private func replyVariant(_ message: OpaquePointer, _ value: DBusValue) {
        var answer: OpaquePointer?
        guard sd_bus_message_new_method_return(message, &answer) >= 0, let answer else { return }
        var writer = DBusWriter(answer)
        writer.variant(value)
        send(answer, status: writer.status)
    }

    private func fail(_ message: OpaquePointer, _ name: String, _ text: String) -> Int32 {
        var error = sd_bus_error()
        sd_bus_error_set(&error, name, text)
        sd_bus_reply_method_error(message, &error)
        sd_bus_error_free(&error)
        return 1
    }

    private func emitPropertiesChanged(_ changed: [(String, DBusValue)]) {
        guard let bus, let signal = newSignal(bus, "org.freedesktop.DBus.Properties", "PropertiesChanged") else { return }
        var writer = DBusWriter(signal)
        writer.append(.string(MPRISBridge.playerInterface))
        writer.append(.dictionary(changed))
        writer.append(.strings([]))
        send(signal, status: writer.status)
    }

    private func newSignal(_ bus: OpaquePointer, _ interface: String, _ member: String) -> OpaquePointer? {
        var signal: OpaquePointer?
        guard sd_bus_message_new_signal(bus, &signal, MPRISBridge.objectPath, interface, member) >= 0 else { return nil }
        return signal
    }

    /// Sends a finished message (unless building it failed) and lets go of it.
    private func send(_ message: OpaquePointer, status: Int32) {
        if status >= 0 { sd_bus_send(bus, message, nil) } else { logger.warning("mpris", "a message could not be built: \(status)") }
        sd_bus_message_unref(message)
    }
}

/// Why the bridge could not start or a command did not go through.
public enum MPRISError: Error, Equatable, Sendable, CustomStringConvertible {
    case bus(String)
    case command(String)

    public var description: String {
        switch self {
        case .bus(let message), .command(let message): message
        }
    }
}
