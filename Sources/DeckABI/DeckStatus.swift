/// A `deck_status_t` as Swift sees it, for the runtime and for plugins written with DeckSDK alike.
public enum DeckStatus: Int32, Error, Sendable, CustomStringConvertible {
    case ok = 0
    case invalid = -1
    case notEntitled = -2
    case limit = -3
    case state = -4
    case unsupported = -5
    case `internal` = -6
    case notOwner = -7

    /// Unknown negative codes from a newer plugin read as `internal`, as plugin.h asks.
    public init(code: Int32) { self = DeckStatus(rawValue: code) ?? (code >= 0 ? .ok : .internal) }

    public var description: String {
        switch self {
        case .ok: "DECK_OK"
        case .invalid: "DECK_E_INVALID"
        case .notEntitled: "DECK_E_NOT_ENTITLED"
        case .limit: "DECK_E_LIMIT"
        case .state: "DECK_E_STATE"
        case .unsupported: "DECK_E_UNSUPPORTED"
        case .internal: "DECK_E_INTERNAL"
        case .notOwner: "DECK_E_NOT_OWNER"
        }
    }
}
