import Glibc

/// cgroup v2 groups as the kernel names them: a process's group in /proc/PID/cgroup, its members
/// in the group's `cgroup.procs`.
public enum Cgroup {
    /// The folder of process `pid`'s group (nil: this process's) under the cgroup2 mount, or nil
    /// when no cgroup2 hierarchy is mounted or the process is gone.
    public static func folder(of pid: pid_t? = nil) -> String? {
        guard let mount, let membership = SystemFile.read(pid.map { "/proc/\($0)/cgroup" } ?? "/proc/self/cgroup", limit: 65_536) else { return nil }
        for line in membership.split(separator: "\n") where line.hasPrefix("0::") {
            let path = line.dropFirst(3)
            return path == "/" ? mount : mount + path
        }
        return nil
    }

    /// The processes in `group` that this process can see: one in another pid namespace is listed
    /// as 0, and `kill(0, …)` would signal our own process group.
    public static func members(_ group: String) -> [pid_t] {
        listed(group).filter { $0 > 0 }
    }

    /// The processes in `group` and in the groups below it that this process can see.
    public static func members(within group: String) -> [pid_t] {
        var found: [pid_t] = [], queue = [group], visited = 0
        while let folder = queue.popLast(), visited < 10_000 {
            visited += 1
            found += members(folder)
            queue += (FolderEntries.subfolders(in: folder) ?? []).map { "\(folder)/\($0)" }
        }
        return found
    }

    /// How many threads, of all its processes, `group` holds (its `cgroup.threads`); nil when it
    /// cannot be read.
    public static func threadCount(_ group: String) -> Int? {
        SystemFile.read("\(group)/cgroup.threads", limit: 1 << 20).map { $0.utf8.count { $0 == UInt8(ascii: "\n") } }
    }

    /// `cgroup.procs` as written, pids of other pid namespaces as 0.
    public static func listed(_ group: String) -> [pid_t] {
        (SystemFile.read("\(group)/cgroup.procs") ?? "").split(separator: "\n").compactMap { pid_t($0) }
    }

    /// Where the cgroup2 hierarchy is mounted (/proc/self/mountinfo), looked up once.
    public static let mount: String? = {
        guard let mounts = SystemFile.read("/proc/self/mountinfo") else { return nil }
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count, fields[dash + 1] == "cgroup2", fields.count > 4 else { continue }
            return String(fields[4])
        }
        return nil
    }()
}
