import DeckBase

/// What one JSON-RPC client or message may cost, from the config's "control" object. Every limit
/// is checked before the work it bounds is done; each is documented in the integrator guide.
public struct ControlLimits: Sendable, Equatable {
    /// Longest message (one line) read, in bytes.
    public var maxMessageBytes = 1 << 20
    /// Deepest nesting of arrays and objects in a message.
    public var maxDepth = 64
    /// Most requests in one batch; a longer batch is refused whole.
    public var maxBatch = 100
    /// Largest answer to one message; batch members past it are answered with a limit error.
    /// At most half of `maxQueuedBytes`, so a client reading normally is never cut off by one answer.
    public var maxResponseBytes = 1 << 20
    /// Unix-socket clients at once.
    public var maxConnections = 64
    /// TCP clients at once that have logged in.
    public var maxTCPConnections = 16
    /// TCP clients at once that have not logged in yet (kept small: anyone local can open them).
    public var maxUnauthenticated = 4
    /// A TCP client that has not logged in by then is disconnected.
    public var loginTimeoutMs = 3_000
    /// A logged-in TCP client silent for this long is disconnected; 0 never.
    public var idleTimeoutMs = 0
    /// Unsent bytes (answers and notifications) one client may have queued; over it the client is
    /// cut off at once. At half of it, its requests are not read until it catches up.
    public var maxQueuedBytes = 2 << 20
    /// A client whose reading was paused and that reads nothing for this long is disconnected.
    public var stallTimeoutMs = 5_000
    /// Loop time one client's requests may take in a row; past it the rest of what it sent waits
    /// for the next loop turn, after the other clients, plugins and sinks had theirs.
    public var turnBudgetMs = 5

    public init() {}

    /// Each setting's config key, its range and its unit: one table for parsing and the docs.
    public static var fields: [(key: String, path: WritableKeyPath<ControlLimits, Int> & Sendable, range: ClosedRange<Int>, unit: String)] { [
        ("maxMessageBytes", \.maxMessageBytes, 1_024...(16 << 20), "bytes"),
        ("maxDepth", \.maxDepth, 2...512, ""),
        ("maxBatch", \.maxBatch, 1...10_000, "requests"),
        ("maxResponseBytes", \.maxResponseBytes, 65_536...(64 << 20), "bytes"),
        ("maxConnections", \.maxConnections, 1...1_024, ""),
        ("maxTCPConnections", \.maxTCPConnections, 1...1_024, ""),
        ("maxUnauthenticated", \.maxUnauthenticated, 1...256, ""),
        ("loginTimeoutMs", \.loginTimeoutMs, 100...60_000, "ms"),
        ("idleTimeoutMs", \.idleTimeoutMs, 0...86_400_000, "ms"),
        ("maxQueuedBytes", \.maxQueuedBytes, 65_536...(256 << 20), "bytes"),
        ("stallTimeoutMs", \.stallTimeoutMs, 100...600_000, "ms"),
        ("turnBudgetMs", \.turnBudgetMs, 1...1_000, "ms"),
    ] }

    /// What the JSON parser may accept of one message.
    public var json: JSONLimits { JSONLimits(maxBytes: maxMessageBytes, maxDepth: maxDepth, maxTopLevelElements: maxBatch) }
}
