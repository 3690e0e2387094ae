import CDeckPlugin

/// A failed host call, or a reason a plugin gives the host for failing: a status and a message.
public struct DeckError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The status: the runtime's own `DeckStatus`.
    public typealias Code = DeckStatus

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A `deck_status_t` from the host; unknown codes read as `internal`.
    init(status: deck_status_t, message: String) {
        self.init(Code(rawValue: status) ?? .internal, message)
    }

    public var description: String { "\(code): \(message)" }
}
