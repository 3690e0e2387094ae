import Glibc

/// Puts a thread to sleep until files may have changed: inotify watches on files (a write in
/// place) and folders (a file written, renamed, created or removed there, or only the entries
/// named), optionally the mounts around some folders (a USB stick mounted), and a pipe to wake it.
/// Used by one thread, but for `wake()`.
public final class FileChangeWatch: @unchecked Sendable {  // the descriptors are fixed; `wake()` only writes to the pipe, the rest is the waiting thread's.
    /// After a change, the quiet that ends a wait (a file being written is read once it is whole),
    /// and the longest it waits for that quiet.
    static let settleMilliseconds = 250
    static let maxSettleMilliseconds = 5_000
    /// The most of the mount table it reads; a larger table counts every change.
    static let maxMountTableBytes = 4 << 20

    private let changes: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var mounts: Int32 = -1
    /// The mount table's lines as last read (nil: unreadable), and the folders whose mounts count.
    private var mountLines: Set<String>?
    private var mountFolders: [String] = []
    /// Per watch, the entries whose events count (nil: every entry).
    private var names: [Int32: Set<String>?] = [:]

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

    /// Watches `folder` for files written, created, renamed or removed in it, or with `only` for
    /// those entries coming and going (`add(file:)` watches a file's writes); false when it cannot
    /// (not there, inotify refused). Watch before reading it, so a change made meanwhile is seen.
    @discardableResult
    public func add(folder: String, only: Set<String>? = nil) -> Bool {
        let entries = IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR
        // Named entries add to what a watch of the whole folder asks for, never narrow it.
        return watch(folder, events: UInt32(only == nil ? entries | IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB : entries | IN_MASK_ADD), only: only)
    }

    /// Watches the file `path` is now (a link followed) for writes in place.
    public func add(file path: String) {
        _ = watch(path, events: UInt32(IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB), only: nil)
    }

    /// Also ends waits when a filesystem is mounted or unmounted in, under or above one of
    /// `folders` (links resolved); a mount elsewhere (a container starting) does not. False when
    /// the mount table cannot be watched.
    @discardableResult
    public func addMounts(around folders: [String]) -> Bool {
        guard !folders.isEmpty else { return true }  // no mount concerns them: no wake-up for any
        if mounts < 0 { mounts = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC) }
        guard mounts >= 0 else { return false }
        var table = pollfd(fd: mounts, events: Int16(POLLPRI), revents: 0)
        _ = poll(&table, 1, 0)  // takes the table as it is now: only later changes end a wait
        mountLines = readMountTable()
        mountFolders = folders.map(FileChangeWatch.resolved)
        return true
    }

    /// Sleeps until something watched changes, `wake()` is called, or `milliseconds` pass (nil:
    /// no limit). After a change it waits for `settleMilliseconds` without one, at most
    /// `maxSettleMilliseconds`.
    public func wait(atMost milliseconds: Int? = nil) {
        let deadline = milliseconds.map { Monotonic.milliseconds + $0 + 1 }  // `now` is rounded down: never a millisecond early
        var firstChange: Int?, lastChange = 0
        while true {
            let now = Monotonic.milliseconds
            var timeout = deadline.map { max(0, $0 - now) } ?? -1
            if let firstChange {
                let end = min(lastChange + FileChangeWatch.settleMilliseconds, firstChange + FileChangeWatch.maxSettleMilliseconds)
                guard now < end else { return }
                timeout = end - now
            }
            var ready = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0), pollfd(fd: changes, events: Int16(POLLIN), revents: 0),
                         pollfd(fd: mounts, events: Int16(POLLPRI), revents: 0)]
            let count = poll(&ready, nfds_t(ready.count), Int32(clamping: timeout))
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            if ready[0].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                while read(wakeRead, &bytes, bytes.count) > 0 {}
                return
            }
            if (ready[2].revents != 0 && mountsChanged()) || (ready[1].revents != 0 && readChanges()) {
                lastChange = Monotonic.milliseconds
                if firstChange == nil { firstChange = lastChange }
            } else if count == 0 && firstChange == nil {
                return  // `milliseconds` passed
            }
        }
    }

    /// Ends the current or next `wait` (any thread).
    public func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func watch(_ path: String, events: UInt32, only: Set<String>?) -> Bool {
        guard changes >= 0 else { return false }
        let descriptor = inotify_add_watch(changes, path, events)
        guard descriptor >= 0 else { return false }
        // A watch asked for whole and for some names (a folder both read and holding another) counts whole.
        var merged = only
        if let known = names[descriptor] {
            if let known, let only { merged = known.union(only) } else { merged = nil }
        }
        names[descriptor] = .some(merged)
        return true
    }

    /// Reads the events waiting; true when one concerns what is watched (or some were lost).
    private func readChanges() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 8192), changed = false
        while case let count = read(changes, &buffer, buffer.count), count > 0 {
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                while offset + 16 <= count {
                    let descriptor = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let name = String(decoding: bytes[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }, as: UTF8.self)
                    offset += 16 + length
                    if mask & UInt32(IN_IGNORED) != 0 { names[descriptor] = nil; continue }
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 { changed = true; continue }
                    guard let only = names[descriptor] else { continue }
                    if only.map({ $0.contains(name) }) ?? true { changed = true }
                }
            }
        }
        return changed
    }

    /// Reads the mount table again; true when a mount around the folders came, went or changed.
    private func mountsChanged() -> Bool {
        let lines = readMountTable()
        defer { mountLines = lines }
        guard let lines, let known = mountLines else { return true }
        return lines.symmetricDifference(known).contains { line in
            let point = FileChangeWatch.mountPoint(of: line)
            return mountFolders.contains { folder in
                point == folder || point.hasPrefix(folder + "/") || folder.hasPrefix(point == "/" ? "/" : point + "/")
            }
        }
    }

    /// The lines of /proc/self/mountinfo, nil when it cannot be read whole.
    private func readMountTable() -> Set<String>? {
        guard lseek(mounts, 0, SEEK_SET) == 0 else { return nil }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= FileChangeWatch.maxMountTableBytes {
            let count = read(mounts, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return Set(bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }) }
            bytes += chunk[..<count]
        }
        return nil
    }

    /// A mountinfo line's mount point (its fifth field), its octal escapes (`\040`) decoded.
    static func mountPoint(of line: String) -> String {
        let field = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false).dropFirst(4).first ?? ""
        var bytes: [UInt8] = [], rest = Array(field.utf8)[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "\\"), rest.count >= 3, let code = UInt8(String(decoding: rest.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(code)
                rest = rest.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `path` with its links resolved, as the mount table names it; a part not there yet (a
    /// folder the stick brings) is kept as written.
    static func resolved(_ path: String) -> String {
        var head = path, tail = ""
        while head != "/" && head != "." {
            if let real = realpath(head, nil) {
                defer { free(real) }
                let resolved = String(cString: real)
                return tail.isEmpty ? resolved : (resolved == "/" ? "" : resolved) + tail
            }
            tail = "/" + FileBytes.name(of: head) + tail
            head = FileBytes.folder(of: head)
        }
        return path
    }
}
