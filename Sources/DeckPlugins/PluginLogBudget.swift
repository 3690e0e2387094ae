import Glibc

/// How many lines a plugin may log: a burst of `burst`, then `perSecond` (a token bucket), so one
/// plugin cannot flood the log or slow the runtime. Suppressed lines are counted and the next
/// admitted line says how many.
struct PluginLogBudget {
    static let burst = 100.0
    static let perSecond = 20.0

    enum Decision: Equatable {
        /// Log it, after `suppressed` lines that were not.
        case log(suppressed: Int)
        /// Drop it; `first` is true for the first line dropped in a run (worth one warning).
        case suppress(first: Bool)
    }

    private var tokens = PluginLogBudget.burst
    private var last: UInt64?
    private var suppressed = 0

    mutating func admit(now: UInt64) -> Decision {
        if let last { tokens = min(PluginLogBudget.burst, tokens + Double(now &- last) / 1_000 * PluginLogBudget.perSecond) }
        last = now
        guard tokens >= 1 else {
            suppressed += 1
            return .suppress(first: suppressed == 1)
        }
        tokens -= 1
        defer { suppressed = 0 }
        return .log(suppressed: suppressed)
    }

}
