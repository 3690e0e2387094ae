import DeckBase

/// A JSON-RPC 2.0 error object: the five standard errors and Deck's server errors (−32000…).
public struct RPCError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public static func parseError(_ detail: String) -> RPCError { RPCError(code: -32700, message: "Parse error: \(detail)") }
    public static func invalidRequest(_ detail: String) -> RPCError { RPCError(code: -32600, message: "Invalid Request: \(detail)") }
    public static func methodNotFound(_ name: String) -> RPCError { RPCError(code: -32601, message: "Method not found: \(PrintableText.excerpt(name))") }
    public static func invalidParams(_ detail: String) -> RPCError { RPCError(code: -32602, message: "Invalid params: \(detail)") }
    public static func internalError(_ detail: String) -> RPCError { RPCError(code: -32603, message: "Internal error: \(detail)") }

    /// Deck's server errors, documented in `rpc.discover`.
    public static let serverErrors: [(code: Int, name: String, meaning: String)] = [
        (-32000, "notEntitled", "the app lacks the entitlement for this"),
        (-32001, "limit", "a size, depth, count or display limit was exceeded"),
        (-32002, "notOwner", "the caller does not own what it tried to change"),
        (-32003, "noSuchApp", "no app with that id is loaded"),
        (-32004, "commandFailed", "the runtime or the app could not carry the command out"),
        (-32005, "unauthorized", "log in first (auth.login) or use the local socket"),
        (-32006, "overloaded", "too many connections or requests; try again later"),
        (-32007, "noSuchContent", "the app has no such item (remote command answer)"),
        (-32008, "noActionableNowPlayingItem", "nothing is playing that the command could act on"),
        (-32009, "commandDisabled", "the app that owns now playing does not carry out this command"),
    ]

    public static func notEntitled(_ detail: String) -> RPCError { RPCError(code: -32000, message: "Not entitled: \(detail)") }
    public static func limit(_ detail: String) -> RPCError { RPCError(code: -32001, message: "Limit: \(detail)") }
    public static func noSuchApp(_ id: String) -> RPCError { RPCError(code: -32003, message: "No such app: \(id.isEmpty ? "\"\" (an empty id)" : id)") }
    public static func commandFailed(_ detail: String) -> RPCError { RPCError(code: -32004, message: "Command failed: \(detail)") }
    public static func noSuchContent(_ detail: String) -> RPCError { RPCError(code: -32007, message: "No such content: \(detail)") }
    public static func noActionableNowPlayingItem(_ detail: String) -> RPCError {
        RPCError(code: -32008, message: "No actionable now-playing item: \(detail)")
    }
    public static func commandDisabled(_ detail: String) -> RPCError { RPCError(code: -32009, message: "Command disabled: \(detail)") }
    public static func overloaded(_ detail: String) -> RPCError { RPCError(code: -32006, message: "Overloaded: \(detail)") }

    public var json: JSONValue {
        var object: JSONObject = ["code": .int(Int64(code)), "message": .string(message)]
        if let data { object["data"] = data }
        return .object(object)
    }

    public var description: String { "\(code) \(message)" }
}
