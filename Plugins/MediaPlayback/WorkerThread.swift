import CProcess
import Glibc

/// A thread of the app's own (decoding, scanning, watching), started with a closure and joined
/// before the app goes: nothing of it may touch the host once the plugin is destroyed.
public final class WorkerThread: @unchecked Sendable {  // `thread` is set once by start and read by join on the same (loop) thread.
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    private var thread: pthread_t?

    /// Starts `body` on a new thread; nil when the system refused one. A `background` thread (a
    /// scan, a watch) runs at nice 10, so it never takes the CPU from playback (Linux's nice is per thread).
    public static func start(background: Bool = false, _ body: @escaping @Sendable () -> Void) -> WorkerThread? {
        let box = Unmanaged.passRetained(Body {
            if background { lowerPriority() }
            body()
        }).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            return nil
        }
        let worker = WorkerThread()
        worker.thread = thread
        return worker
    }

    /// Nice 10 for the calling thread (the sandbox lets a thread change its own, and only its own).
    private static func lowerPriority() { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) }

    /// Waits for the thread to return (the caller has told it to).
    public func join() {
        guard let thread else { return }
        self.thread = nil
        pthread_join(thread, nil)
    }
}

/// A counting semaphore a thread waits on for work.
public final class WakeSignal: @unchecked Sendable {  // sem_t is made for use across threads.
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    public init() { sem_init(semaphore, 0, 0) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    public func signal() { sem_post(semaphore) }

    /// Waits until signalled.
    public func wait() { while sem_wait(semaphore) != 0, errno == EINTR {} }

    /// Waits until signalled or `milliseconds` passed on the monotonic clock (the wall clock may
    /// be set back meanwhile, as a car's is from GPS).
    public func wait(milliseconds: Int) {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + milliseconds % 1000 * 1_000_000
        deadline.tv_sec += milliseconds / 1000 + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        while deck_semaphore_wait_until(semaphore, &deadline) != 0, errno == EINTR {}
    }
}
