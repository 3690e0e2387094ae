import CProcess
import Glibc

/// A deadline that another thread keeps pushing back and the loop hears pass (a timerfd the loop
/// polls): that thread proves it lives without waking the loop, which wakes only once it stops.
/// `push` from any thread; the rest loop-thread-confined.
public final class LoopDeadline: @unchecked Sendable {  // Only `push` is called off the loop: it touches the immutable descriptor, and timerfd_settime is thread-safe.
    private let descriptor: Int32
    private let watcher: FileWatcher

    public init(loop: EventLoop) throws(LoopError) {
        let descriptor = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard descriptor >= 0 else { throw LoopError("timerfd_create", code: -errno) }
        do {
            watcher = try FileWatcher(loop: loop, fileDescriptor: descriptor)
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        self.descriptor = descriptor
    }

    /// Runs `action` on the loop each time the deadline passes.
    public func start(_ action: @escaping () -> Void) {
        watcher.start(writable: false) { [descriptor] in
            var expirations: UInt64 = 0
            _ = read(descriptor, &expirations, MemoryLayout<UInt64>.size)
            action()
        }
    }

    /// Sets the deadline `nanoseconds` from now; 0 clears it. [any thread]
    public func push(nanoseconds: Int) {
        var setting = itimerspec()
        setting.it_value = timespec(tv_sec: nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
        timerfd_settime(descriptor, 0, &setting, nil)
    }

    /// Stops watching, then closes the descriptor (the loop lets go of it in `uv_close`).
    public func close() {
        guard !watcher.isClosed else { return }
        watcher.close()
        Glibc.close(descriptor)
    }
}
