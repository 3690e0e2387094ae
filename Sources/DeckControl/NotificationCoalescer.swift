import DeckBase

/// Sends a topic's changes at most once per window: the first change on the next loop turn,
/// later ones in the window folded into one at its end, carrying the state as it is then. Never
/// sending from inside the call that reported the change is what keeps a plugin's own call (an
/// image handed over, a load completed) from being answered by calls back into that plugin.
/// Loop-thread-confined.
public final class NotificationCoalescer {
    private let timer: any SchedulerTimer
    private let window: UInt64
    /// Publishes the topic's current state.
    public var send: () -> Void = {}
    private var dirty = false
    private var armed = false
    /// Changes reported and notifications sent, for the coalescing ratio.
    public private(set) var changes = 0
    public private(set) var sent = 0

    public init(scheduler: any Scheduler, windowMilliseconds: Int) throws(LoopError) {
        timer = try scheduler.makeTimer()
        window = UInt64(max(0, windowMilliseconds))
    }

    /// Something changed: send on the next loop turn, or at the end of the current window.
    public func changed() {
        changes += 1
        dirty = true
        if !armed { arm(after: 0) }
    }

    /// The window is armed before `send` runs, so a change that `send` itself causes waits for it.
    private func arm(after delay: UInt64) {
        armed = true
        timer.start(after: delay) { [unowned self] in
            armed = false
            guard dirty else { return }
            dirty = false
            sent += 1
            if window > 0 { arm(after: window) }
            send()
        }
    }

    public func close() { timer.close() }
}
