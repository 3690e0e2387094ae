import DeckSDK

extension DeckHost {
    /// Runs what a remote command asks: `.success`, or `.commandFailed` with the reason logged.
    public func commandResult(_ body: () throws -> Void) -> CommandResult {
        do {
            try body()
            return .success
        } catch {
            log(.warning, "command failed: \(error)")
            return .commandFailed
        }
    }
}
