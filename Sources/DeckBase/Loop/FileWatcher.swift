import CLibUV

/// Watches a descriptor someone else owns (a D-Bus connection's) for readiness. Loop-thread-confined.
public final class FileWatcher: LoopHandle {
    private var action: (() -> Void)?

    public init(loop: EventLoop, fileDescriptor: Int32) throws(LoopError) {
        super.init(owning: loop)
        let status = uv_poll_init(loop.raw, raw.assumingMemoryBound(to: uv_poll_t.self), fileDescriptor)
        if status < 0 {
            discardUninitialised()
            throw LoopError("uv_poll_init", code: status)
        }
        attach()
    }

    /// Runs `action` whenever the descriptor is readable, or also writable when `writable`.
    public func start(writable: Bool, _ action: @escaping () -> Void) {
        guard !isClosed else { return }
        self.action = action
        let events = Int32(UV_READABLE.rawValue) | (writable ? Int32(UV_WRITABLE.rawValue) : 0)
        uv_poll_start(raw.assumingMemoryBound(to: uv_poll_t.self), events) { poll, _, _ in
            LoopHandle.owner(poll, as: FileWatcher.self)?.action?()
        }
    }
}
