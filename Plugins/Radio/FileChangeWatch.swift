import Glibc

/// Puts a thread to sleep until files may have changed: inotify watches on each file and on its
/// folder (a write in place, a rename over it, its creation or removal), and a pipe to wake it.
/// Where a folder cannot be watched (it is not there yet, inotify is refused) it looks again
/// after `fallbackMilliseconds`.
final class FileChangeWatch: @unchecked Sendable {  // the descriptors are fixed; `wake()` only writes to the pipe.
    let paths: [String]
    let fallbackMilliseconds: Int32
    let settleMilliseconds: Int32 = 100
    private let changes: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Whether every folder was watched at the last look (the waiting thread's alone).
    private var allWatched = false

    /// nil when the system gave no pipe.
    init?(paths: [String], fallbackMilliseconds: Int32 = 500) {
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else { return nil }
        for end in pipe {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        self.paths = paths
        self.fallbackMilliseconds = fallbackMilliseconds
        changes = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        wakeRead = pipe[0]
        wakeWrite = pipe[1]
        arm()
    }

    deinit {
        if changes >= 0 { close(changes) }
        close(wakeRead)
        close(wakeWrite)
    }

    /// Sleeps until a watched file or folder changes or `wake()` is called; with a folder
    /// unwatched, at most `fallbackMilliseconds`. After a change it waits for `settleMilliseconds`
    /// without one, for a second at most (a file being written is read once it is whole), and it
    /// watches again before it returns, so a change made while the caller then looks at the files
    /// ends the next wait.
    func wait() {
        var ready = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0), pollfd(fd: changes, events: Int16(POLLIN), revents: 0)]
        while poll(&ready, changes >= 0 ? 2 : 1, allWatched ? -1 : fallbackMilliseconds) < 0, errno == EINTR {}
        if ready[0].revents == 0, ready[1].revents != 0 {
            var more = [pollfd(fd: changes, events: Int16(POLLIN), revents: 0), ready[0]], settled: Int32 = 0
            repeat {
                drain(changes)
                settled += settleMilliseconds
            } while settled < 1_000 && poll(&more, 2, settleMilliseconds) > 0 && more[1].revents == 0
        }
        drain(wakeRead)
        if changes >= 0 { drain(changes) }
        arm()
    }

    /// Ends the current or next `wait` (any thread).
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Watches every file that is there and every folder.
    private func arm() {
        allWatched = changes >= 0
        guard allWatched else { return }
        let folderEvents = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_ATTRIB | IN_ONLYDIR)
        let fileEvents = UInt32(IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB)
        for path in paths {
            let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
            if inotify_add_watch(changes, folder, folderEvents) < 0 { allWatched = false }
            _ = inotify_add_watch(changes, path, fileEvents)  // also follows a link to a file elsewhere
        }
    }

    private func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(fd, &buffer, buffer.count) > 0 {}
    }
}
