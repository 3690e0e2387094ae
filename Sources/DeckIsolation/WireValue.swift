/// A value that crosses the socket between the runtime and a plugin host process. Encoding and
/// decoding live side by side, so the two processes cannot disagree.
package protocol WireValue {
    func encode(into writer: inout WireWriter)
    init(from reader: inout WireReader) throws(WireError)
}

/// Why a message from the other process cannot be used; the runtime ends a host that sends one.
package enum WireError: Error, Equatable, Sendable, CustomStringConvertible {
    case truncated
    case invalid(String)
    case tooLarge(Int, limit: Int)
    case closed
    case timedOut(milliseconds: Int)
    case io(String)

    package var description: String {
        switch self {
        case .truncated: "a message ends early"
        case .invalid(let what): "a message is malformed: \(what)"
        case .tooLarge(let size, let limit): "a message of \(size) bytes is over the limit of \(limit)"
        case .closed: "the connection closed"
        case .timedOut(let milliseconds): "no answer within \(milliseconds) ms"
        case .io(let reason): reason
        }
    }
}

/// What a message is; its first byte after the length.
package enum WireKind: UInt8, Sendable {
    /// Runtime → host: a call into the plugin's code, answered by `reply`.
    case call = 1, reply
    /// Host → runtime: a plugin's loop-thread host call, answered by `hostReply`.
    case hostCall, hostReply
    /// Host → runtime, unanswered: a log line, a callback request, a heartbeat.
    case event
    /// Host → runtime, once: whether the plugin's code loaded.
    case hello
}

/// Builds one message: a 4-byte little-endian length, the kind, then the values.
package struct WireWriter {
    package private(set) var bytes: [UInt8]

    package init(_ kind: WireKind) { bytes = [0, 0, 0, 0, kind.rawValue] }

    package mutating func write<T: WireValue>(_ value: T) { value.encode(into: &self) }

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ raw: some Collection<UInt8>) { bytes.append(contentsOf: raw) }

    /// The message with its length filled in.
    package var message: [UInt8] {
        var framed = bytes
        let length = UInt32(bytes.count - 4)
        withUnsafeBytes(of: length.littleEndian) { for (index, byte) in $0.enumerated() { framed[index] = byte } }
        return framed
    }
}

/// Reads one message's values in order; every read is bounds-checked.
package struct WireReader {
    private let body: [UInt8]
    private var offset: Int
    package let kind: WireKind

    /// `body` is a message without its length prefix.
    package init(body: [UInt8]) throws(WireError) {
        guard let first = body.first else { throw .truncated }
        guard let kind = WireKind(rawValue: first) else { throw .invalid("unknown message kind \(first)") }
        self.body = body
        self.kind = kind
        offset = 1
    }

    package mutating func read<T: WireValue>(_ type: T.Type = T.self) throws(WireError) -> T { try T(from: &self) }

    mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws(WireError) -> T {
        let size = MemoryLayout<T>.size
        guard body.count - offset >= size else { throw .truncated }
        var value: T = 0
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: body[offset..<offset + size]) }
        offset += size
        return T(littleEndian: value)
    }

    mutating func raw(count: Int) throws(WireError) -> ArraySlice<UInt8> {
        guard count >= 0, body.count - offset >= count else { throw .truncated }
        defer { offset += count }
        return body[offset..<offset + count]
    }

    /// Throws unless every byte was read: a message longer than its values is malformed too.
    package func finish() throws(WireError) {
        guard offset == body.count else { throw .invalid("\(body.count - offset) unread bytes") }
    }
}
