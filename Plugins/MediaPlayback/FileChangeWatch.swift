import Glibc

/// Puts a thread to sleep until files may have changed: inotify watches on files (a write in
/// place) and folders (a file written, renamed, created or removed there), optionally the mount
/// table (a USB stick mounted), and a pipe to wake it. Used by one thread, but for `wake()`.
public final class FileChangeWatch: @unchecked Sendable {  // the descriptors are fixed; `wake()` only writes to the pipe, the rest is the waiting thread's.
    /// After a change, the quiet that ends a wait (a file being written is read once it is whole),
    /// and the longest it waits for that quiet.
    public static let settleMilliseconds: Int32 = 250
    public static let maxSettleMilliseconds: Int32 = 5_000

    private let changes: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var mounts: Int32 = -1

    /// nil when the system gave no pipe; without inotify, waits end only at their timeout.
    public init?() {
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else { return nil }
        for end in pipe {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        changes = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        wakeRead = pipe[0]
        wakeWrite = pipe[1]
    }

    deinit {
        for fd in [changes, mounts] where fd >= 0 { close(fd) }
        close(wakeRead)
        close(wakeWrite)
    }

    /// Watches `folder` for files written, created, renamed or removed in it; false when it cannot
    /// (not there, inotify refused). Watch before reading it, so a change made meanwhile is seen.
    @discardableResult
    public func add(folder: String) -> Bool {
        let events = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_ONLYDIR
        return changes >= 0 && inotify_add_watch(changes, folder, UInt32(events)) >= 0
    }

    /// Watches the file `path` is now (a link followed) for writes in place.
    public func add(file path: String) {
        if changes >= 0 { _ = inotify_add_watch(changes, path, UInt32(IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB)) }
    }

    /// Also ends waits when a filesystem is mounted or unmounted; false when the mount table
    /// cannot be watched.
    @discardableResult
    public func addMounts() -> Bool {
        if mounts < 0 { mounts = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC) }
        guard mounts >= 0 else { return false }
        var table = pollfd(fd: mounts, events: Int16(POLLPRI), revents: 0)
        _ = poll(&table, 1, 0)  // takes the table as it is now: only later changes end a wait
        return true
    }

    /// Sleeps until something watched changes, `wake()` is called, or `milliseconds` pass (nil:
    /// no limit). After a change it waits for `settleMilliseconds` without one.
    public func wait(atMost milliseconds: Int32? = nil) {
        var ready = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0), pollfd(fd: changes, events: Int16(POLLIN), revents: 0),
                     pollfd(fd: mounts, events: Int16(POLLPRI), revents: 0)]
        while poll(&ready, nfds_t(ready.count), milliseconds ?? -1) < 0, errno == EINTR {}
        if ready[0].revents == 0, ready[1].revents != 0 || ready[2].revents != 0 { settle() }
        drain(wakeRead)
    }

    /// Ends the current or next `wait` (any thread).
    public func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Reads what changed until `settleMilliseconds` pass without a change, a `wake()` comes, or
    /// `maxSettleMilliseconds` passed.
    private func settle() {
        var more = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0), pollfd(fd: changes, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: mounts, events: Int16(POLLPRI), revents: 0)]
        let started = FileChangeWatch.milliseconds
        repeat {
            if changes >= 0 { drain(changes) }
        } while FileChangeWatch.milliseconds - started < Int(FileChangeWatch.maxSettleMilliseconds)
            && poll(&more, nfds_t(more.count), FileChangeWatch.settleMilliseconds) > 0 && more[0].revents == 0
    }

    private static var milliseconds: Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1_000 + now.tv_nsec / 1_000_000
    }

    private func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(fd, &buffer, buffer.count) > 0 {}
    }
}
