/// Why the center refused a change; each maps to a plugin status and a JSON-RPC error.
public enum NowPlayingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The caller is not the owner (who holds, or last held, music focus).
    case notOwner(caller: String, owner: String?)
    case invalid(String)
    case limit(String)

    public var description: String {
        switch self {
        case .notOwner(let caller, let owner?):
            "\(caller) does not own now playing: \(owner) does (it holds, or last held, music focus)"
        case .notOwner(let caller, nil):
            "\(caller) does not own now playing: no app holds music focus; request it (deck.session, context \"music\") first"
        case .invalid(let message), .limit(let message): message
        }
    }
}
