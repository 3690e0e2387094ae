import DeckBase

/// A method's parameters as the caller sent them: by position or by name.
public struct RPCParams: Sendable {
    public var positional: [JSONValue] = []
    public var named: JSONObject = [:]

    /// The parameter declared at `position` under `name`, from whichever form was used.
    public func value(_ name: String, at position: Int) -> JSONValue? {
        // Spelled out: in `named[name] ?? (… : nil)` the nil would become JSONValue.null (it is
        // nil-literal expressible) and an absent parameter would read as a null one.
        if let value = named[name] { return value }
        guard position < positional.count else { return nil }
        return positional[position]
    }
}

/// One entry of the method table: what the dispatcher calls and what `rpc.discover` describes.
/// One source of truth for both.
public struct RPCMethod {
    public struct Param {
        public var name: String
        public var schema: JSONValue { didSet { maxLength = Schema.maxLength(of: schema) } }
        public var required: Bool
        public var summary: String
        /// The longest string the schema admits, kept so the dispatcher checks it without reading the schema.
        public private(set) var maxLength: Int?

        public init(_ name: String, _ schema: JSONValue, required: Bool = true, _ summary: String = "") {
            self.name = name
            self.schema = schema
            self.required = required
            self.summary = summary
            maxLength = Schema.maxLength(of: schema)
        }
    }

    public typealias Handler = (RPCCall) throws(RPCError) -> JSONValue
    /// Answers once, now or later (a plugin completing a remote command).
    public typealias Reply = (Result<JSONValue, RPCError>) -> Void
    public typealias DeferredHandler = (RPCCall, @escaping Reply) throws(RPCError) -> Void

    /// How the method answers: by returning, or through its reply when it is ready.
    public enum Body {
        case immediate(Handler)
        case deferred(DeferredHandler)
    }

    public var name: String
    public var summary: String
    public var params: [Param]
    public var result: JSONValue
    /// Server error codes the method may answer with.
    public var errors: [Int]
    /// Callable before the connection has logged in (only `auth.login` is).
    public var open = false
    public var body: Body

    public init(_ name: String, _ summary: String, params: [Param] = [], result: JSONValue = ["type": "object"],
                errors: [Int] = [], open: Bool = false, handler: @escaping Handler) {
        self.name = name
        self.summary = summary
        self.params = params
        self.result = result
        self.errors = errors
        self.open = open
        body = .immediate(handler)
    }

    /// A method whose answer may come after the call returns; the dispatcher sends it then.
    public init(_ name: String, _ summary: String, params: [Param] = [], result: JSONValue = ["type": "object"],
                errors: [Int] = [], deferred: @escaping DeferredHandler) {
        self.init(name, summary, params: params, result: result, errors: errors, handler: { _ in .null })
        body = .deferred(deferred)
    }
}

/// A call being handled: its parameters (checked against the declared ones) and the connection.
public struct RPCCall {
    public var params: RPCParams
    public var connection: RPCConnection
    /// The parameters the method declares, for look-ups by name and their schemas' bounds.
    let declared: [RPCMethod.Param]

    public func optional(_ name: String) -> JSONValue? {
        guard let index = declared.firstIndex(where: { $0.name == name }) else { return nil }
        return params.value(name, at: index)
    }

    public func string(_ name: String) throws(RPCError) -> String {
        guard let value = optional(name)?.stringValue else { throw .invalidParams("\"\(name)\" must be a string") }
        return value
    }

    /// An integer parameter, held to the `minimum` and `maximum` its schema declares.
    public func integer(_ name: String) throws(RPCError) -> Int64 {
        let schema = self.schema(of: name)
        let range = (schema?["minimum"]?.intValue ?? .min)...(schema?["maximum"]?.intValue ?? .max)
        guard let value = optional(name)?.integer(in: range) else {
            throw .invalidParams("\"\(name)\" must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A number parameter, finite and held to the `minimum` and `maximum` its schema declares.
    public func number(_ name: String) throws(RPCError) -> Double {
        let schema = self.schema(of: name)
        let range = (schema?["minimum"]?.doubleValue ?? -.greatestFiniteMagnitude)...(schema?["maximum"]?.doubleValue ?? .greatestFiniteMagnitude)
        guard let value = optional(name)?.number(in: range) else {
            throw .invalidParams("\"\(name)\" must be a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    private func schema(of name: String) -> JSONValue? { declared.first { $0.name == name }?.schema }

    public func optionalString(_ name: String) throws(RPCError) -> String? {
        guard let value = optional(name), value != .null else { return nil }
        guard let text = value.stringValue else { throw .invalidParams("\"\(name)\" must be a string") }
        return text
    }

    /// A boolean parameter, `otherwise` when absent or null; anything else is an error, not false.
    public func bool(_ name: String, otherwise: Bool) throws(RPCError) -> Bool {
        guard let value = optional(name), value != .null else { return otherwise }
        guard let flag = value.boolValue else { throw .invalidParams("\"\(name)\" must be true or false") }
        return flag
    }
}

/// What the dispatcher knows of a client: its subscriptions and how to reach it with notifications.
/// Loop-thread-confined.
public final class RPCConnection {
    public var topics: Set<String> = []
    /// False on a TCP connection until `auth.login` succeeds; local socket connections start true.
    public var authenticated: Bool
    /// The token `auth.login` must be given, when the transport needs one.
    public let token: String?
    /// Sends one notification line to the client.
    public let send: (String) -> Void

    /// True once the transport said the client is gone: late answers are dropped.
    public private(set) var isClosed = false

    /// What ends with the connection (e.g. integrator focus it requested), by key.
    private var releases: [String: () -> Void] = [:]

    /// The client's own name, when its transport gives one (a libdeck client handle's): the default
    /// owner name of the integrator focus it requests.
    public let clientName: String?
    /// The audio zone the client's calls act on when they name none (`zones.bind`); nil: never
    /// bound, so the primary zone, and `apps.launch` plays an app in the zone it is in.
    public var zone: String?

    public init(token: String? = nil, clientName: String? = nil, send: @escaping (String) -> Void) {
        self.token = token
        self.clientName = clientName
        authenticated = token == nil
        self.send = send
    }

    /// Runs `release` when the connection closes, unless `forget(key)` came first; a later call
    /// with the same key replaces it.
    public func onClose(_ key: String, _ release: @escaping () -> Void) { releases[key] = release }

    public func forget(_ key: String) { releases[key] = nil }

    /// The transport says the client is gone: release what it held, once.
    public func closed() {
        isClosed = true
        let pending = releases
        releases = [:]
        for key in pending.keys.sorted() { pending[key]?() }
    }
}
