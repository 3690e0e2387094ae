/// What a plugin's calls on the loop thread took over the last `window` milliseconds, in
/// buckets of a tenth of it, so a call that ended long ago stops counting. Loop-thread-confined.
package struct LoopTimeLedger: Sendable {
    private var buckets: [Int]
    private let bucketMilliseconds: Int
    /// The bucket the newest time went into, as milliseconds / bucketMilliseconds.
    private var newest = 0

    package init(windowMilliseconds: Int) {
        buckets = Array(repeating: 0, count: 10)
        bucketMilliseconds = max(1, windowMilliseconds / 10)
    }

    /// Adds `microseconds` spent in a call that ended at `now` (monotonic milliseconds).
    package mutating func add(_ microseconds: Int, at now: Int) {
        advance(to: now)
        buckets[newest % buckets.count] += microseconds
    }

    /// Microseconds spent within the window ending at `now`.
    package mutating func spent(at now: Int) -> Int {
        advance(to: now)
        return buckets.reduce(0, +)
    }

    private mutating func advance(to now: Int) {
        let current = now / bucketMilliseconds
        guard current > newest else { return }
        for step in 1...min(current - newest, buckets.count) { buckets[(newest + step) % buckets.count] = 0 }
        newest = current
    }
}

/// Each plugin's share of the loop thread (`loopBudget` in the config): over `sharePercent` of
/// the last `windowMs`, the callbacks it asks for wait until it is within it again; overspent
/// for `endAfterWindows` windows in a row, the runtime ends it (an isolated plugin is restarted).
public struct LoopBudget: Sendable, Equatable {
    public var windowMilliseconds = 5_000
    public var sharePercent = 20
    public var endAfterWindows = 3

    public init() {}

    /// Microseconds a plugin may spend within a window.
    package var allowanceMicroseconds: Int { windowMilliseconds * 10 * sharePercent }
}
