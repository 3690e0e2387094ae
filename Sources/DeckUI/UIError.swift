/// Why the runtime refused a plugin's template call; the message names the rule and its value.
public enum UIError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Malformed input: bad JSON, an unknown key or type, a missing text, an unknown id.
    case invalid(String)
    /// The plugin's entitlements do not allow the template.
    case notEntitled(String)
    /// A structural limit: too many tabs or actions, too deep, the quota spent, a second modal.
    case limit(String)
    /// Not now: no display, nothing to pop or dismiss, a token already completed.
    case state(String)

    public var description: String {
        switch self {
        case .invalid(let message), .notEntitled(let message), .limit(let message), .state(let message): message
        }
    }
}
