import DeckBase
import Glibc
import Synchronization

/// A cgroup v2 group for each host, under one group per runtime (`deck-<pid>-<n>-ns<pid namespace>`)
/// inside the runtime's own, where the runtime may make one (root, or a delegated group):
/// `cgroup.kill` ends every process of a plugin at once, forks, `setsid` children and orphans
/// included. Loop-thread-confined.
final class HostCgroups {
    /// The runtime's group, or nil when none could be made (each host's end then falls back to
    /// its uid or process group).
    let parent: String?
    /// Why there is none, for the log.
    private(set) var unavailable: String?
    private var next = 1
    /// Groups whose processes were killed but not yet gone when they were removed.
    private var leftovers: [String] = []

    init() {
        guard let base = Cgroup.folder() else {
            parent = nil
            unavailable = "no cgroup v2 hierarchy is mounted"
            return
        }
        let namespace = HostCgroups.pidNamespace()
        HostCgroups.removeStale(in: base, namespace: namespace)
        let folder = "\(base)/deck-\(getpid())-\(HostCgroups.runtimes.add(1, ordering: .relaxed).newValue)" + (namespace.map { "-ns\($0)" } ?? "")
        guard mkdir(folder, 0o755) == 0 else {
            unavailable = "cannot make \(folder): \(String(cString: strerror(errno))) (the runtime's cgroup is not delegated to it)"
            parent = nil
            return
        }
        parent = folder
    }

    /// Removes every group, killing what is left in them; later hosts get none.
    func removeAll() {
        guard let parent, !isClosed else { return }
        isClosed = true
        HostCgroups.removeTree(parent)
    }
    private var isClosed = false

    deinit { removeAll() }

    /// A new, empty group for one host, or nil.
    func make() -> String? {
        guard let parent, !isClosed else { return nil }
        leftovers = leftovers.filter { rmdir($0) != 0 && errno == EBUSY }
        let folder = "\(parent)/host-\(next)"
        next += 1
        if mkdir(folder, 0o755) == 0 { return folder }
        // Something removed the runtime's group (an older runtime that took it for a dead one's): made again.
        guard errno == ENOENT, mkdir(parent, 0o755) == 0 || errno == EEXIST else { return nil }
        return mkdir(folder, 0o755) == 0 ? folder : nil
    }

    /// Kills every process in `group` and removes it (later, if its processes are not gone yet).
    func end(_ group: String) {
        HostCgroups.kill(group)
        if rmdir(group) != 0 && errno == EBUSY { leftovers.append(group) }
    }

    /// `cgroup.kill` (Linux 5.14), else SIGKILL to each process listed until none is.
    static func kill(_ group: String) {
        if write("1", to: "\(group)/cgroup.kill") { return }
        for _ in 0..<10 {
            let pids = Cgroup.members(group)
            if pids.isEmpty { return }
            for pid in pids { Glibc.kill(pid, SIGKILL) }
        }
    }

    /// Whether a process (this group's or a descendant group's) is still in `group`.
    private static func isPopulated(_ group: String) -> Bool {
        SystemFile.read("\(group)/cgroup.events")?.split(separator: "\n").contains("populated 1") ?? false
    }

    /// Runtimes in this process that made a group (libdeck may run several).
    private static let runtimes = Atomic<Int>(0)

    /// This process's pid namespace (the inode of `/proc/self/ns/pid`): a group's pid means
    /// something only to runtimes of the namespace it names.
    private static func pidNamespace() -> UInt64? {
        var info = stat()
        return stat("/proc/self/ns/pid", &info) == 0 ? UInt64(info.st_ino) : nil
    }

    /// Groups of runtimes that are gone (`deck-<pid>-<n>-ns<namespace>` of this pid namespace with
    /// no such process), their processes killed. A group named for another pid namespace belongs to
    /// a runtime whose pid means nothing here: nothing in it is killed, and it is removed only when
    /// nothing runs in it (that runtime gone, or between hosts: it makes the group again). An older
    /// runtime's group (named without its namespace) holding processes this one cannot see (pid 0)
    /// is left alone.
    private static func removeStale(in base: String, namespace: UInt64?) {
        for name in FolderEntries.names(in: base) ?? [] {
            let fields = name.split(separator: "-", omittingEmptySubsequences: false)
            guard (3...4).contains(fields.count), fields[0] == "deck", let pid = pid_t(fields[1]) else { continue }
            let group = "\(base)/\(name)"
            guard fields.count == 3 || namespace.map({ fields[3] == "ns\($0)" }) == true else {
                removeIfEmpty(group)
                continue
            }
            guard Glibc.kill(pid, 0) != 0 && errno == ESRCH else { continue }
            guard !([group] + hosts(of: group)).contains(where: { Cgroup.listed($0).contains(0) }) else { continue }
            removeTree(group)
        }
    }

    /// Removes `group` and its hosts' groups where no process is in them (rmdir refuses a group
    /// that holds one). A host's group made in the last 10 s is kept: its host may not have joined yet.
    private static func removeIfEmpty(_ group: String) {
        let settled = time(nil) - 10
        var info = stat()
        for host in hosts(of: group) where stat(host, &info) == 0 && info.st_mtim.tv_sec < settled { rmdir(host) }
        rmdir(group)
    }

    /// The paths of `group`'s hosts' groups.
    private static func hosts(of group: String) -> [String] {
        (FolderEntries.names(in: group) ?? []).filter { $0.hasPrefix("host-") }.map { "\(group)/\($0)" }
    }

    /// Kills what is left in `group`'s children and removes them and it. Killed processes take a
    /// moment to exit and a group holding one cannot be removed: up to 0.5 s is given them.
    private static func removeTree(_ group: String) {
        let hosts = hosts(of: group)
        for host in hosts { kill(host) }
        let deadline = MonotonicClock.milliseconds + 500
        while hosts.contains(where: isPopulated), MonotonicClock.milliseconds < deadline { usleep(1_000) }
        for host in hosts { rmdir(host) }
        rmdir(group)
    }

    private static func write(_ text: String, to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return text.utf8CString.withUnsafeBufferPointer { Glibc.write(descriptor, $0.baseAddress, $0.count - 1) } == text.utf8.count
    }

    /// Joins `group` (this process, first thing in a host); false when it cannot.
    static func join(_ group: String) -> Bool { write("0", to: "\(group)/cgroup.procs") }
}
