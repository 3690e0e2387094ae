import Glibc

/// A value guarded by a plain glibc mutex, for the locks every embedded call takes. Swift's
/// `Mutex` is a priority-inheritance futex on Linux, whose unlock hands the lock to a sleeping
/// waiter: with more calling threads than CPUs, the loop thread then queues behind callers
/// waiting to be scheduled. A plain mutex lets whoever runs take it.
final class PosixMutex<Value>: @unchecked Sendable {  // `value` is read and written only under `lock`.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
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
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}
