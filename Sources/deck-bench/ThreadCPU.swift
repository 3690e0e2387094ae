import DeckRuntime
import Glibc

/// This process's threads as the kernel counts them: name, CPU time (schedstat, ns) and
/// voluntary context switches (each a sleep and a wake-up), to say where a run's CPU went.
struct ThreadCPU {
    var id: Int
    var name: String
    var nanoseconds: Int
    var wakeUps: Int

    static func snapshot() -> [Int: ThreadCPU] {
        var threads: [Int: ThreadCPU] = [:]
        for tid in FolderEntries.names(in: "/proc/self/task") ?? [] {
            guard let id = Int(tid) else { continue }
            let folder = "/proc/self/task/\(tid)/"
            let name = (SystemFile.read(folder + "comm") ?? "?").split(separator: "\n").first.map(String.init) ?? "?"
            let cpu = (SystemFile.read(folder + "schedstat") ?? "").split(separator: " ").first.flatMap { Int($0) } ?? 0
            let switches = (SystemFile.read(folder + "status") ?? "").split(separator: "\n")
                .first { $0.hasPrefix("voluntary_ctxt_switches:") }
                .flatMap { Int($0.split(separator: "\t").last ?? "") } ?? 0
            threads[id] = ThreadCPU(id: id, name: name, nanoseconds: cpu, wakeUps: switches)
        }
        return threads
    }

    /// Whether this is the process's main thread (its id is the process's).
    var isMain: Bool { id == Int(getpid()) }

    /// What each thread spent between two snapshots, busiest first (threads that ended are gone).
    static func spent(from before: [Int: ThreadCPU], to after: [Int: ThreadCPU]) -> [ThreadCPU] {
        after.map { id, now in
            ThreadCPU(id: id, name: now.name, nanoseconds: now.nanoseconds - (before[id]?.nanoseconds ?? 0), wakeUps: now.wakeUps - (before[id]?.wakeUps ?? 0))
        }.filter { $0.nanoseconds > 0 }.sorted { $0.nanoseconds > $1.nanoseconds }
    }
}
