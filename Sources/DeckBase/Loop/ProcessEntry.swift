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
    public static func children(of pid: pid_t) -> [pid_t] {
        (FolderEntries.names(in: "/proc/\(pid)/task") ?? []).flatMap { task in
            (SystemFile.read("/proc/\(pid)/task/\(task)/children") ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pid_t($0) }
        }
    }
}
