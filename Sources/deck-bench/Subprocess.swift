import Glibc

/// A child process whose stderr and stdout come back through one pipe, timed from spawn.
final class Subprocess {
    let pid: pid_t
    private let readEnd: Int32
    private let started: UInt64
    private(set) var output = ""

    init(_ path: String, _ arguments: [String]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw BenchError("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        started = Subprocess.now()
        let status = posix_spawn(&child, path, &actions, nil, argv, environ)
        close(fds[1])
        guard status == 0 else {
            close(fds[0])
            throw BenchError("cannot start \(path): \(String(cString: strerror(status)))")
        }
        pid = child
        readEnd = fds[0]
    }

    /// Reads output until `marker` appears; returns the milliseconds since spawn, or nil at EOF.
    func millisecondsUntil(_ marker: String) -> Double? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !output.contains(marker) {
            let count = read(readEnd, &chunk, chunk.count)
            if count <= 0 { return nil }
            output += String(decoding: chunk[..<count], as: UTF8.self)
        }
        return elapsedMilliseconds()
    }

    func elapsedMilliseconds() -> Double { Double(Subprocess.now() - started) / 1e6 }

    /// Peak resident set size so far (VmHWM), in KiB.
    func peakResidentKiB() -> Int {
        let status = (try? MachineInfo.readText("/proc/\(pid)/status")) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }

    /// Times any of its threads has gone to sleep and woken since it started (voluntary context switches).
    func sleepsEnded(withChildren: Bool = false) -> Int {
        let tasks = "/proc/\(pid)/task", list = (try? TemporaryFolder.list(tasks)) ?? []
        let children = !withChildren ? [] : list.flatMap { task in
            ((try? MachineInfo.readText("\(tasks)/\(task)/children")) ?? "").split(separator: " ").compactMap { pid_t($0) }
        }
        return children.reduce(Subprocess.sleepsEnded(of: pid)) { $0 + Subprocess.sleepsEnded(of: $1) }
    }

    /// The voluntary context switches of every thread of `process`.
    private static func sleepsEnded(of process: pid_t) -> Int {
        let tasks = "/proc/\(process)/task"
        return ((try? TemporaryFolder.list(tasks)) ?? []).reduce(0) { total, task in
            let status = (try? MachineInfo.readText("\(tasks)/\(task)/status")) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") } ?? ""
            return total + (Int(line.split(separator: "\t").last ?? "") ?? 0)
        }
    }

    /// Signals the child (if asked), drains its output and returns its exit status.
    @discardableResult
    func finish(signal: Int32? = nil) -> Int32 {
        if let signal { kill(pid, signal) }
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(readEnd, &chunk, chunk.count)
            if count <= 0 { break }
            output += String(decoding: chunk[..<count], as: UTF8.self)
        }
        close(readEnd)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return (status >> 8) & 0xff
    }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
