import DeckBase
import Synchronization

/// Plugins' `request_callback` calls, from any thread, queued under a lock; the doorbell only wakes
/// the loop, which then drains the queue (doorbell rings coalesce and carry nothing).
public final class CallbackRequests: Sendable {
    private let pending = Mutex<[Int]>([])
    private let ringer: AsyncDoorbell.Ringer

    package init(ringer: AsyncDoorbell.Ringer) { self.ringer = ringer }

    /// Queues a callback for the plugin with this instance number and wakes the loop.
    func request(instance: Int) {
        pending.withLock { $0.append(instance) }
        ringer.ring()
    }

    /// Instance numbers requested since the last drain, in request order. [loop-thread]
    package func drain() -> [Int] { pending.withLock { queue in defer { queue = [] }; return queue } }
}
