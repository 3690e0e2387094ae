import Glibc
import Synchronization

/// A value guarded by a plain glibc mutex, for the locks every embedded call takes. Swift's
/// `Mutex` is a priority-inheritance futex on Linux, whose unlock hands the lock to a sleeping
/// waiter: with more calling threads than CPUs, the loop thread then queues behind callers
/// waiting to be scheduled. A plain mutex lets whoever runs take it. Like `Mutex`, locking it
/// again from the thread that holds it traps rather than hangs.
final class PosixMutex<Value>: @unchecked Sendable {  // `value` is read and written only under `lock`.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// The thread holding the lock (0: none): only that thread can find itself here.
    private let owner = Atomic<UInt>(0)
    private var value: Value

    init(_ value: Value) {
        self.value = value
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        let me = UInt(pthread_self())
        if owner.load(ordering: .relaxed) == me { fatalError("PosixMutex locked again by the thread that holds it") }
        pthread_mutex_lock(lock)
        owner.store(me, ordering: .relaxed)
        defer {
            owner.store(0, ordering: .relaxed)
            pthread_mutex_unlock(lock)
        }
        return try body(&value)
    }
}
