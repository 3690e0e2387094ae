import CLibUV

/// Delivers a POSIX signal (SIGINT, SIGTERM, …) on the loop thread. Loop-thread-confined.
public final class SignalWatcher: LoopHandle {
    private var action: ((Int32) -> Void)?

    public init(loop: EventLoop) throws(LoopError) {
        super.init(owning: loop)
        let status = uv_signal_init(loop.raw, raw.assumingMemoryBound(to: uv_signal_t.self))
        if status < 0 {
            discardUninitialised()
            throw LoopError("uv_signal_init", code: status)
        }
        attach()
    }

    public func start(signal: Int32, _ action: @escaping (Int32) -> Void) throws(LoopError) {
        self.action = action
        let status = uv_signal_start(raw.assumingMemoryBound(to: uv_signal_t.self), { watcher, signal in
            LoopHandle.owner(watcher, as: SignalWatcher.self)?.action?(signal)
        }, signal)
        try LoopError.check(status, "uv_signal_start(\(signal))")
    }

}
