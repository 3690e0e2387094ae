import CLibUV

/// A one-shot or repeating timer on the loop. Loop-thread-confined.
public final class LoopTimer: LoopHandle {
    private var action: (() -> Void)?

    public init(loop: EventLoop) throws(LoopError) {
        super.init(owning: loop)
        let status = uv_timer_init(loop.raw, raw.assumingMemoryBound(to: uv_timer_t.self))
        if status < 0 {
            discardUninitialised()
            throw LoopError("uv_timer_init", code: status)
        }
        attach()
    }

    /// Fires `action` after `milliseconds`, then every `repeatMilliseconds` if that is not 0.
    public func start(after milliseconds: UInt64, repeat repeatMilliseconds: UInt64 = 0, _ action: @escaping () -> Void) {
        guard !isClosed else { return }
        self.action = action
        uv_timer_start(raw.assumingMemoryBound(to: uv_timer_t.self), { timer in
            LoopHandle.owner(timer, as: LoopTimer.self)?.action?()
        }, milliseconds, repeatMilliseconds)
    }

    public func stop() {
        guard !isClosed else { return }
        uv_timer_stop(raw.assumingMemoryBound(to: uv_timer_t.self))
    }

    /// Also lets go of the action, so what it captured (often this timer) is released.
    public override func close() {
        super.close()
        action = nil
    }
}
