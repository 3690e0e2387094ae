import CSystemd

/// A D-Bus value of the types MPRIS properties use.
package enum DBusValue: Equatable {
    case string(String)
    case objectPath(String)
    case bool(Bool)
    case int64(Int64)
    case double(Double)
    case strings([String])
    /// `a{sv}`, in order.
    case dictionary([(String, DBusValue)])

    var signature: String {
        switch self {
        case .string: "s"
        case .objectPath: "o"
        case .bool: "b"
        case .int64: "x"
        case .double: "d"
        case .strings: "as"
        case .dictionary: "a{sv}"
        }
    }

    package static func == (lhs: DBusValue, rhs: DBusValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)), (.objectPath(let a), .objectPath(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.int64(let a), .int64(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.strings(let a), .strings(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }
}

/// Appends values to an outgoing sd-bus message with the non-variadic calls (Swift cannot call
/// `sd_bus_message_append`). Negative results are kept: the message is dropped if any failed.
struct DBusWriter {
    let message: OpaquePointer
    private(set) var status: Int32 = 0

    init(_ message: OpaquePointer) { self.message = message }

    mutating func append(_ value: DBusValue) {
        switch value {
        case .string(let text): text.withCString { record(sd_bus_message_append_basic(message, DBusWriter.type("s"), $0)) }
        case .objectPath(let path): path.withCString { record(sd_bus_message_append_basic(message, DBusWriter.type("o"), $0)) }
        case .bool(let flag):
            var raw: Int32 = flag ? 1 : 0
            record(sd_bus_message_append_basic(message, DBusWriter.type("b"), &raw))
        case .int64(var number): record(sd_bus_message_append_basic(message, DBusWriter.type("x"), &number))
        case .double(var number): record(sd_bus_message_append_basic(message, DBusWriter.type("d"), &number))
        case .strings(let texts):
            container("a", "s") { writer in texts.forEach { writer.append(.string($0)) } }
        case .dictionary(let entries):
            container("a", "{sv}") { writer in
                for (key, value) in entries {
                    writer.container("e", "sv") { entry in
                        entry.append(.string(key))
                        entry.variant(value)
                    }
                }
            }
        }
    }

    mutating func variant(_ value: DBusValue) {
        container("v", value.signature) { $0.append(value) }
    }

    private mutating func container(_ type: Character, _ contents: String, _ body: (inout DBusWriter) -> Void) {
        record(contents.withCString { sd_bus_message_open_container(message, DBusWriter.type(type), $0) })
        body(&self)
        record(sd_bus_message_close_container(message))
    }

    private mutating func record(_ result: Int32) { if result < 0 && status == 0 { status = result } }

    static func type(_ character: Character) -> CChar { CChar(bitPattern: character.asciiValue!) }
}

/// Reads the arguments of an incoming call.
struct DBusReader {
    let message: OpaquePointer

    func string(_ type: Character = "s") -> String? {
        var pointer: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, DBusWriter.type(type), &pointer) > 0, let pointer else { return nil }
        return String(cString: pointer)
    }

    func int64() -> Int64? {
        var value: Int64 = 0
        return sd_bus_message_read_basic(message, DBusWriter.type("x"), &value) > 0 ? value : nil
    }

    /// The `ProcessID` and `UnixUserID` of the bus's `GetConnectionCredentials` answer (a{sv});
    /// nil when either is missing or out of range.
    func credentials() -> (pid: pid_t, uid: uid_t)? {
        guard sd_bus_message_enter_container(message, DBusWriter.type("a"), "{sv}") > 0 else { return nil }
        var found: [String: UInt32] = [:]
        while sd_bus_message_enter_container(message, DBusWriter.type("e"), "sv") > 0 {
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            if let key = string(), key == "ProcessID" || key == "UnixUserID",
               sd_bus_message_peek_type(message, &type, &contents) > 0, let contents, String(cString: contents) == "u",
               sd_bus_message_enter_container(message, DBusWriter.type("v"), "u") > 0 {
                var value: UInt32 = 0
                if sd_bus_message_read_basic(message, DBusWriter.type("u"), &value) > 0 { found[key] = value }
                sd_bus_message_exit_container(message)
            } else {
                sd_bus_message_skip(message, "v")
            }
            sd_bus_message_exit_container(message)
        }
        sd_bus_message_exit_container(message)
        guard let pid = found["ProcessID"], let uid = found["UnixUserID"], pid > 0, pid <= UInt32(Int32.max) else { return nil }
        return (pid_t(pid), uid)
    }

    /// A variant's value, for the basic types `Set` takes (s, b, d).
    func variant() -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard sd_bus_message_peek_type(message, &type, &contents) > 0, type == DBusWriter.type("v"), let contents else { return nil }
        guard sd_bus_message_enter_container(message, DBusWriter.type("v"), contents) > 0 else { return nil }
        defer { sd_bus_message_exit_container(message) }
        switch String(cString: contents) {
        case "s": return string().map(DBusValue.string)
        case "b":
            var raw: Int32 = 0
            return sd_bus_message_read_basic(message, DBusWriter.type("b"), &raw) > 0 ? .bool(raw != 0) : nil
        case "d":
            var value = 0.0
            return sd_bus_message_read_basic(message, DBusWriter.type("d"), &value) > 0 ? .double(value) : nil
        default: return nil
        }
    }
}
