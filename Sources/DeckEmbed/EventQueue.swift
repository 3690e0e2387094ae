import DeckRuntime
import Glibc

/// The notifications a handle without an event callback keeps for `deck_runtime_wait_event`: at
/// most `capacity`; beyond that the oldest go, and are counted. Any thread.
final class EventQueue: @unchecked Sendable {  // `lines` and `dropped` are guarded by `lock`.
    static let capacity = 1024

    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let ready = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var lines: [String] = []
    private var first = 0
    /// Notifications pushed out of a full queue, since the handle was made.
    private var dropped = 0

    init() {
        pthread_mutex_init(lock, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(ready, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(ready)
        pthread_mutex_destroy(lock)
        ready.deallocate()
        lock.deallocate()
    }

    /// Adds `line`; when the queue was full and its oldest line went, how many went so far.
    func push(_ line: String) -> Int? {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        var full: Int?
        if lines.count - first >= EventQueue.capacity {
            first += 1
            dropped += 1
            full = dropped
        }
        lines.append(line)
        if first > EventQueue.capacity {  // compact now and then, not at every pop
            lines.removeFirst(first)
            first = 0
        }
        pthread_cond_signal(ready)
        return full
    }

    /// The oldest line, waiting up to `timeoutMilliseconds` for one (0: not at all); nil when none came.
    func pop(timeoutMilliseconds: Int) -> String? {
        let deadline = MonotonicClock.milliseconds + timeoutMilliseconds
        var until = timespec(tv_sec: deadline / 1000, tv_nsec: (deadline % 1000) * 1_000_000)
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        while first == lines.count && timeoutMilliseconds > 0 {
            if pthread_cond_timedwait(ready, lock, &until) == ETIMEDOUT { break }
        }
        guard first < lines.count else { return nil }
        defer { first += 1 }
        return lines[first]
    }
}
