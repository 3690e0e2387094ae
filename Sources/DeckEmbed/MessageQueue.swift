import DeckRuntime
import Glibc

/// What a handle keeps for `deck_runtime_wait_event` and `deck_runtime_wait_message`: the
/// notifications it subscribed to while it has no event callback (at most `capacity`; beyond that
/// the oldest go, and are counted), and the answers to its tagged calls while it has no reply
/// callback (never dropped: each is a call the integrator made). Any thread.
final class MessageQueue: @unchecked Sendable {  // `messages` and `dropped` are guarded by `lock`.
    static let capacity = 1024

    struct Message {
        /// The answer's reply tag; nil for a notification.
        var tag: UInt64? = nil
        var line: String
    }

    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let ready = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var messages: [Message] = []
    private var events = 0
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

    /// Adds `message`; when the queue held `capacity` notifications already and its oldest went,
    /// how many went so far.
    func push(_ message: Message) -> Int? {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        var full: Int?
        if message.tag == nil {
            if events >= MessageQueue.capacity, let oldest = messages.firstIndex(where: { $0.tag == nil }) {
                messages.remove(at: oldest)
                events -= 1
                dropped += 1
                full = dropped
            }
            events += 1
        }
        messages.append(message)
        pthread_cond_broadcast(ready)
        return full
    }

    /// The oldest message (the oldest notification with `eventsOnly`), waiting up to
    /// `timeoutMilliseconds` for one (0: not at all); nil when none came.
    func pop(timeoutMilliseconds: Int, eventsOnly: Bool) -> Message? {
        let deadline = MonotonicClock.milliseconds + timeoutMilliseconds
        var until = timespec(tv_sec: deadline / 1000, tv_nsec: (deadline % 1000) * 1_000_000)
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        var index = messages.firstIndex { !eventsOnly || $0.tag == nil }
        while index == nil && timeoutMilliseconds > 0 {
            if pthread_cond_timedwait(ready, lock, &until) == ETIMEDOUT { break }
            index = messages.firstIndex { !eventsOnly || $0.tag == nil }
        }
        guard let index else { return nil }
        let message = messages.remove(at: index)
        if message.tag == nil { events -= 1 }
        return message
    }
}
