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
    /// Set by a watcher about to sleep with no call to time; the next call to begin clears it and rings.
    private let watcherSleeps = Atomic<Bool>(false)
    private let bell = Mutex<(@Sendable () -> Void)?>(nil)

    package init() {}

    func enter(_ plugin: String, _ call: String, at now: Int) {
        calls.withLock { $0.append(Call(plugin: plugin, call: call, since: now)) }
        // After the append: a watcher that armed before its look either saw this call or is rung.
        if watcherSleeps.load(ordering: .sequentiallyConsistent), watcherSleeps.exchange(false, ordering: .sequentiallyConsistent) {
            bell.withLock { $0?() }
        }
    }

    func leave() { calls.withLock { _ = $0.popLast() } }

    /// The innermost call running now, if any.
    package var innermost: Call? { calls.withLock { $0.last } }

    /// `ring` is called (on the loop thread) when a call begins after `ringOnNextCall`.
    package func setBell(_ ring: @escaping @Sendable () -> Void) { bell.withLock { $0 = ring } }

    /// Arms the bell for the next call to begin: a watcher calls it before it looks at `innermost`
    /// and, finding nothing to time, sleeps until rung, where it would otherwise wake to poll.
    package func ringOnNextCall() { watcherSleeps.store(true, ordering: .sequentiallyConsistent) }
}
