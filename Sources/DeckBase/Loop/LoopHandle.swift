import CLibUV

/// Owns one libuv handle's memory; `close()` hands it to `uv_close`, whose callback frees it.
/// Each owner keeps its loop alive, so a loop never goes away under an open handle.
/// Subclasses are loop-thread-confined.
open class LoopHandle {
    /// Storage large enough for any handle type, so one owner type serves pipes and TCP alike.
    let raw: UnsafeMutableRawPointer
    let loop: EventLoop
    public private(set) var isClosed = false

    init(owning loop: EventLoop) {
        self.loop = loop
        raw = .allocate(byteCount: MemoryLayout<uv_any_handle>.size, alignment: MemoryLayout<uv_any_handle>.alignment)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<uv_any_handle>.size)
    }

    var handle: UnsafeMutablePointer<uv_handle_t> { raw.assumingMemoryBound(to: uv_handle_t.self) }

    /// Binds the handle's `data` to this owner, after the handle's `uv_*_init` succeeded.
    func attach() { handle.pointee.data = Unmanaged.passUnretained(self).toOpaque() }

    /// Frees the memory of a handle whose init failed (it was never registered with the loop).
    func discardUninitialised() {
        isClosed = true
        raw.deallocate()
    }

    /// Whether the loop keeps running while this handle is open (`uv_ref`, as every handle starts),
    /// or may end without it (`uv_unref`).
    public var keepsLoopAlive = true {
        didSet {
            guard !isClosed else { return }
            if keepsLoopAlive { uv_ref(handle) } else { uv_unref(handle) }
        }
    }

    /// Stops the handle; no callback reaches this owner afterwards.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        LoopHandle.detach(handle)
        uv_close(handle, LoopHandle.freeOnClose)
    }

    deinit { close() }

    /// The owner behind a handle, or nil once it was closed.
    static func owner<T: LoopHandle>(_ handle: UnsafeMutableRawPointer?, as: T.Type) -> T? {
        guard let data = handle?.assumingMemoryBound(to: uv_handle_t.self).pointee.data else { return nil }
        return Unmanaged<T>.fromOpaque(data).takeUnretainedValue()
    }

    static func detach(_ handle: UnsafeMutablePointer<uv_handle_t>) { handle.pointee.data = nil }

    static let freeOnClose: uv_close_cb = { handle in UnsafeMutableRawPointer(handle)?.deallocate() }
}
