import Synchronization

/// The plugin calls running on the loop thread now, innermost last, so a thread of the daemon's
/// can name a call that has not returned (the loop itself cannot: it is inside it).
package final class LoopCallWatch: Sendable {
    package struct Call: Sendable, Equatable {
        package var plugin: String
        package var call: String
        /// CLOCK_MONOTONIC milliseconds when it began.
        package var since: Int
    }

    private let calls = Mutex<[Call]>([])

    package init() {}

    func enter(_ plugin: String, _ call: String, at now: Int) { calls.withLock { $0.append(Call(plugin: plugin, call: call, since: now)) } }

    func leave() { calls.withLock { _ = $0.popLast() } }

    /// The innermost call running for longer than `milliseconds`, if any.
    package func stuck(longerThan milliseconds: Int, now: Int) -> Call? {
        calls.withLock { $0.last.flatMap { now - $0.since > milliseconds ? $0 : nil } }
    }
}
