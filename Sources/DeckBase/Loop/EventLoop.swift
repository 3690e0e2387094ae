import CLibUV
import Glibc
import Synchronization

/// A libuv failure, with libuv's own name and message for the code.
public struct LoopError: Error, Equatable, Sendable, CustomStringConvertible {
    public var operation: String
    public var code: Int32

    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    public var description: String {
        "\(operation): \(String(cString: uv_strerror(code))) (\(String(cString: uv_err_name(code))))"
    }

    /// Throws when `code` is a libuv error (negative).
    static func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(LoopError) {
        if code < 0 { throw LoopError(operation(), code: code) }
    }
}

/// Remembers which thread runs the loop (or the audio) so any thread can ask "am I on it?".
public final class ThreadIdentity: Sendable {
    private let id = Atomic<UInt>(0)

    public init() {}

    /// Marks the calling thread as the one this identity names.
    package func claim() { id.store(UInt(pthread_self()), ordering: .releasing) }

    public var isCurrent: Bool { id.load(ordering: .acquiring) == UInt(pthread_self()) }
}

/// The runtime's libuv loop. Loop-thread-confined.
public final class EventLoop {
    let raw: UnsafeMutablePointer<uv_loop_t>
    public let thread = ThreadIdentity()

    public init() throws(LoopError) {
        raw = .allocate(capacity: 1)
        let status = uv_loop_init(raw)
        if status < 0 {
            raw.deallocate()
            throw LoopError("uv_loop_init", code: status)
        }
        thread.claim()
    }

    /// Runs until no active handles remain or `stop()` is called.
    public func run() {
        thread.claim()
        uv_run(raw, UV_RUN_DEFAULT)
    }

    /// Runs one pass without blocking; returns whether handles are still active.
    @discardableResult
    public func runNoWait() -> Bool {
        thread.claim()
        return uv_run(raw, UV_RUN_NOWAIT) != 0
    }

    /// A descriptor that becomes readable when the loop has work (libuv's backend fd), for an
    /// embedder's poll or epoll set.
    public var backendDescriptor: Int32 { uv_backend_fd(raw) }

    /// How long an embedder may wait before running the loop again, in ms; -1 for no timer.
    public var backendTimeout: Int32 { uv_backend_timeout(raw) }

    /// Makes `run()` return after the current iteration.
    public func stop() { uv_stop(raw) }

    /// Milliseconds of the loop's cached clock.
    public var now: UInt64 { uv_now(raw) }

    /// Refreshes the cached clock, for a timer started after a callback that waited (its delay
    /// counts from the refreshed time).
    public func updateTime() { uv_update_time(raw) }

    deinit {
        // Owners retain the loop, so only handles already closing remain; let their callbacks run.
        uv_walk(raw, { handle, _ in
            if let handle, uv_is_closing(handle) == 0 {
                LoopHandle.detach(handle)
                uv_close(handle, LoopHandle.freeOnClose)
            }
        }, nil)
        while uv_run(raw, UV_RUN_NOWAIT) != 0 {}
        uv_loop_close(raw)
        raw.deallocate()
    }
}
