import DeckBase

/// When calls into hosts must be answered by, on the monotonic clock in milliseconds, shared by
/// a loader's hosts: set when the runtime shuts down within a time, so hosts that do not answer
/// (stopped, stuck) cannot hold the shutdown past it. Loop-thread-confined.
final class CallDeadline {
    var milliseconds: Int?

    /// How long a call may wait: `limit`, or less as the deadline nears; nil once it has passed.
    func timeout(within limit: Int) -> Int? {
        guard let milliseconds else { return limit }
        let left = milliseconds - MonotonicClock.milliseconds
        return left > 0 ? min(limit, left) : nil
    }
}
