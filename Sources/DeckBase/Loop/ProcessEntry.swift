import Glibc

/// One process as /proc shows it: its state, parent and process group (/proc/PID/stat), and its
/// children (/proc/PID/task/TID/children).
public struct ProcessEntry: Sendable {
    public let pid: pid_t
    /// `R`, `S`, `Z` (ended, not yet reaped), …
    public let state: Character
    public let parent: pid_t
    public let processGroup: pid_t

    /// Nil when the process is gone or its stat cannot be read.
    public init?(_ pid: pid_t) {
        // The command, in parentheses, may hold spaces: the fields follow its last ')'.
        guard let stat = SystemFile.read("/proc/\(pid)/stat", limit: 1024), let command = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: command)...].split(separator: " ")
        guard fields.count > 2, let state = fields[0].first, let parent = pid_t(fields[1]), let group = pid_t(fields[2]) else { return nil }
        (self.pid, self.state, self.parent, self.processGroup) = (pid, state, parent, group)
    }

    /// The children of process `pid`, those of each of its threads.
    public static func children(of pid: pid_t) -> [pid_t] { children(in: "/proc/\(pid)") }

    /// This process's children, read through /proc/self (all a sandboxed host may read of /proc).
    public static func ownChildren() -> [pid_t] { children(in: "/proc/self") }

    private static func children(in folder: String) -> [pid_t] {
        (FolderEntries.names(in: "\(folder)/task") ?? []).flatMap { task in
            (SystemFile.read("\(folder)/task/\(task)/children") ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pid_t($0) }
        }
    }

    /// Every descendant of process `pid`, parents before their children; at most `limit`.
    public static func descendants(of pid: pid_t, limit: Int = 4_096) -> [pid_t] {
        var found = children(of: pid), next = 0
        while next < found.count && found.count < limit {
            found += children(of: found[next])
            next += 1
        }
        return Array(found.prefix(limit))
    }
}
