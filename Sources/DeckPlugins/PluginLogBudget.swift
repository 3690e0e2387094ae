import Glibc

/// How many lines a plugin may log: a burst of `burst`, then `perSecond` (a token bucket), so one
/// plugin cannot flood the log or slow the runtime. Suppressed lines are counted and the next
/// admitted line says how many; a flood is announced once, until the bucket has filled again.
struct PluginLogBudget {
    static let burst = 100.0
    static let perSecond = 20.0

    enum Decision: Equatable {
        /// Log it, after `suppressed` lines that were not.
        case log(suppressed: Int)
        /// Drop it; `first` is true for the first line dropped in a flood (worth one warning).
        case suppress(first: Bool)
    }

    /// The bucket's size and rate over the defaults: 2 for lines a plugin's host process forwards,
    /// which that process has held to the budget already, so only a host that did not is held back.
    private let scale: Double
    private var tokens: Double
    private var last: UInt64?
    private var suppressed = 0
    /// A flood was announced; cleared once the bucket is full again.
    private var warned = false

    init(scale: Double = 1) {
        self.scale = scale
        tokens = PluginLogBudget.burst * scale
    }

    mutating func admit(now: UInt64) -> Decision {
        let burst = PluginLogBudget.burst * scale
        if let last { tokens = min(burst, tokens + Double(now &- last) / 1_000 * PluginLogBudget.perSecond * scale) }
        last = now
        if tokens >= burst { warned = false }
        guard tokens >= 1 else {
            suppressed += 1
            defer { warned = true }
            return .suppress(first: !warned)
        }
        tokens -= 1
        defer { suppressed = 0 }
        return .log(suppressed: suppressed)
    }
}
