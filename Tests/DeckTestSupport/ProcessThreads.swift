import Foundation

/// The threads of a process as /proc shows them, for tests of what an idle process does.
public enum ProcessThreads {
    /// Each thread's voluntary context switches (each sleep it ended), keyed by "name (tid)".
    public static func wakeUps(of pid: pid_t) throws -> [String: Int] {
        let tasks = "/proc/\(pid)/task/"
        return try FileManager.default.contentsOfDirectory(atPath: tasks).reduce(into: [:]) { woken, task in
            let status = try String(contentsOfFile: tasks + task + "/status", encoding: .utf8).split(separator: "\n")
            let name = try String(contentsOfFile: tasks + task + "/comm", encoding: .utf8).trimmingCharacters(in: .newlines)
            woken["\(name) (\(task))"] = status.first { $0.hasPrefix("voluntary_ctxt_switches:") }
                .flatMap { Int($0.split(separator: "\t").last ?? "") } ?? 0
        }
    }

    /// Each thread's nice value (Linux keeps one per thread), keyed by thread id.
    public static func niceValues(of pid: pid_t) throws -> [String: Int] {
        let tasks = "/proc/\(pid)/task/"
        return try FileManager.default.contentsOfDirectory(atPath: tasks).reduce(into: [:]) { values, task in
            // Field 19 of stat; the name (field 2) may hold spaces, so count from the ")" that ends it.
            let stat = try String(contentsOfFile: tasks + task + "/stat", encoding: .utf8)
            let fields = stat[(stat.lastIndex(of: ")") ?? stat.startIndex)...].split(separator: " ")
            values[task] = fields.count > 17 ? Int(fields[17]) : nil
        }
    }

    /// Each thread's name, state and the kernel function it waits in, and the process's children
    /// with theirs: what a process that does not end is waiting for.
    public static func snapshot(of pid: pid_t) -> String {
        func read(_ path: String) -> String { ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines) }
        let tasks = "/proc/\(pid)/task/"
        let threads = ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).sorted().map { task in
            let stat = read(tasks + task + "/stat")
            let state = stat[(stat.lastIndex(of: ")") ?? stat.startIndex)...].split(separator: " ").dropFirst().first ?? "?"
            return "  \(read(tasks + task + "/comm")) (\(task)) \(state) in \(read(tasks + task + "/wchan"))"
        }
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).flatMap { task in
            read(tasks + task + "/children").split(separator: " ").map { child in
                "  child \(child): \(read("/proc/\(child)/comm")) \(read("/proc/\(child)/stat").split(separator: " ").dropFirst(2).first ?? "?") in \(read("/proc/\(child)/wchan"))"
            }
        }
        return (threads + children).joined(separator: "\n")
    }

    /// The threads that woke between two `wakeUps` readings, and how often.
    public static func woken(from before: [String: Int], to after: [String: Int]) -> [String: Int] {
        after.reduce(into: [:]) { woken, thread in
            let count = thread.value - (before[thread.key] ?? 0)
            if count > 0 { woken[thread.key] = count }
        }
    }
}
