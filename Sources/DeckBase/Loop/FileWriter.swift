import Glibc

/// The thread that writes one `LoopFile`'s bytes: a slow disk stalls neither the loop nor libuv's
/// shared pool, and a write that lands wakes nobody. The loop hears only of failures, of the file's
/// deletion and of the close. Any thread.
final class FileWriter: @unchecked Sendable {  // Every stored `var` is read and written under `lock`.
    /// What the loop has not been told yet.
    struct News {
        /// Each failed write, oldest first: its errno and the bytes it did not write.
        var failures: [(code: Int32, lostBytes: Int)] = []
        var deleted = false
        /// The file is closed: everything written before the close has landed or failed.
        var closed = false
    }

    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let descriptor: Int32
    private let ringer: AsyncDoorbell.Ringer
    /// The most bytes that may wait for a thread stuck in a write (a disk that stopped answering).
    let maxPendingBytes: Int
    /// Bytes appended since the thread last took them; it writes them as one.
    private var pending: [UInt8] = []
    private var writing = false
    private var closing = false
    private var news = News()

    /// Starts the thread that writes to `descriptor` (and closes it once asked); `ringer` tells the
    /// loop there is news.
    init(descriptor: Int32, ringer: AsyncDoorbell.Ringer, maxPendingBytes: Int = 4 << 20) throws(LoopError) {
        self.descriptor = descriptor
        self.ringer = ringer
        self.maxPendingBytes = maxPendingBytes
        pthread_mutex_init(lock, nil)
        pthread_cond_init(wake, nil)
        var handle = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&handle, nil, { context in
            Unmanaged<FileWriter>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<FileWriter>.fromOpaque(context).release()
            throw LoopError("starting the file's writer thread", code: -status)
        }
        pthread_detach(handle)
    }

    deinit {
        pthread_cond_destroy(wake)
        pthread_mutex_destroy(lock)
        wake.deallocate()
        lock.deallocate()
    }

    /// Bytes appended that the thread has not taken yet.
    var pendingBytes: Int { locked { pending.count } }

    /// Nothing waiting, nothing being written, and no failure or deletion the loop has not heard:
    /// a sink that reports itself finished has reported its errors too.
    var isIdle: Bool { locked { pending.isEmpty && !writing && news.failures.isEmpty && !news.deleted } }

    /// Appends `bytes` after everything appended before; false, taking none of them, when that
    /// would leave more than `maxPendingBytes` waiting.
    func append(_ bytes: [UInt8]) -> Bool {
        locked {
            guard pending.count + bytes.count <= maxPendingBytes else { return false }
            pending.append(contentsOf: bytes)
            if !writing { pthread_cond_signal(wake) }
            return true
        }
    }

    /// Writes what is pending, then closes the file and ends the thread.
    func close() {
        locked {
            closing = true
            pthread_cond_signal(wake)
        }
    }

    /// What happened since the last call.
    func takeNews() -> News {
        locked {
            defer { news = News() }
            return news
        }
    }

    private func run() {
        ThreadName.set("deck-file")
        var batch: [UInt8] = []
        var lastLinkCheck = 0, deletionSeen = false
        pthread_mutex_lock(lock)
        while true {
            while pending.isEmpty && !closing { pthread_cond_wait(wake, lock) }
            if pending.isEmpty { break }
            swap(&batch, &pending)
            writing = true
            pthread_mutex_unlock(lock)
            let failure = write(batch)
            batch.removeAll(keepingCapacity: true)
            // At most once a second, and once found, never again.
            var deleted = false
            let now = MonotonicClock.milliseconds
            if !deletionSeen && now >= lastLinkCheck + 1_000 {
                lastLinkCheck = now
                deleted = !isLinked
                deletionSeen = deleted
            }
            pthread_mutex_lock(lock)
            writing = false
            if let failure { news.failures.append(failure) }
            if deleted { news.deleted = true }
            if failure != nil || deleted { ringer.ring() }
        }
        Glibc.close(descriptor)
        news.closed = true
        pthread_mutex_unlock(lock)
        ringer.ring()
    }

    /// Writes all of `bytes`, going on after short writes; the errno that stopped it and the bytes
    /// left unwritten, if any.
    private func write(_ bytes: [UInt8]) -> (code: Int32, lostBytes: Int)? {
        bytes.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return (errno, bytes.count - offset)
                }
                offset += written
            }
            return nil
        }
    }

    /// Whether the file still has a name (fstat on an open descriptor does not block).
    private var isLinked: Bool {
        var info = stat()
        return fstat(descriptor, &info) != 0 || info.st_nlink > 0
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }
}
