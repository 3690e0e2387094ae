import DeckBase

/// Sends a topic's changes at most once per window: the first change at once, later ones in the
/// window folded into one at its end, carrying the state as it is then. Loop-thread-confined.
public final class NotificationCoalescer {
    private let timer: LoopTimer
    private let window: UInt64
    /// Publishes the topic's current state.
    public var send: () -> Void = {}
    private var dirty = false
    private var open = false
    /// Changes reported and notifications sent, for the coalescing ratio.
    public private(set) var changes = 0
    public private(set) var sent = 0

    public init(loop: EventLoop, windowMilliseconds: Int) throws(LoopError) {
        timer = try LoopTimer(loop: loop)
        window = UInt64(max(0, windowMilliseconds))
    }

    /// Something changed: send now, or at the end of the current window.
    public func changed() {
        changes += 1
        if open {
            dirty = true
            return
        }
        fire()
    }

    private func fire() {
        sent += 1
        dirty = false
        send()
        guard window > 0 else { return }
        open = true
        timer.start(after: window) { [unowned self] in
            open = false
            if dirty { fire() }
        }
    }

    public func close() { timer.close() }
}
