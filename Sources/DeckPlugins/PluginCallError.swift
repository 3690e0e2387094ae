/// A call into or out of a plugin that was refused or failed, with a message for the log.
public struct PluginCallError: Error, Equatable, Sendable, CustomStringConvertible {
    public var status: DeckStatus
    public var message: String

    public init(status: DeckStatus, message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status): \(message)" }
}
