import DeckBase
import Glibc

/// The plugin run inline (in a deckd of its own, `--isolation inline`) through three whole
/// lifecycles in one process — load, play, unload (deactivate, destroy) — as a runtime that keeps
/// its library loaded does: each must work, and after destroy nothing of it may keep running or
/// stay open. Threads and descriptors are the runtime process's, compared after the first and the
/// last cycle (the first pays for one-time set-up: the library's own and the output's).
struct InlineLifecycle {
    let bundle: String
    let id: String
    let item: String?
    let deckd: String
    let config: String
    let work: String
    private(set) var findings: [(rule: String, reason: String)] = []
    /// Its render calls' durations in the first cycle (`apps.list`'s renderMs), when it played.
    private(set) var renderTimes: JSONValue?

    init(bundle: String, id: String, item: String?, deckd: String, config: String, work: String) {
        self.bundle = bundle
        self.id = id
        self.item = item
        self.deckd = deckd
        self.config = config
        self.work = work
    }

    static let cycles = 3
    /// Growth every cycle must pass to count as a leak.
    static let residentGrowthKiB = 2 * 1024
    /// Render calls the first cycle times (one second of 20 ms frames), and how long past its
    /// second of play it waits for them.
    static let timedCalls = 50
    static let timingGraceSeconds = 5.0

    mutating func run(plays: Bool) {
        let log = work + "/inline.log", socket = work + "/inline.sock"
        mkdir(work + "/inline-plugins", 0o755)
        let process: Spawned
        do {
            process = try Spawned(deckd, ["--config", config, "--plugins", work + "/inline-plugins", "--state", "none",
                                          "--sink", "file:\(work)/inline.opus", "--socket", socket, "--insecure-plugins",
                                          "--isolation", "inline"], log: log,
                                  // One malloc arena: new threads' arenas would look like growth.
                                  environment: ["MALLOC_ARENA_MAX=1"])
        } catch {
            findings.append(("lifecycle.repeat", "the inline runtime did not start: \(error)"))
            return
        }
        defer { process.stop() }
        guard let runtime = RuntimeConnection(socket: socket, of: process, seconds: 10) else {
            findings.append(("lifecycle.repeat", "the inline runtime did not start: " + process.failure("did not open its socket", log: log)))
            return
        }
        var baseline: (threads: Set<String>, descriptors: [String: String], resident: Int)?
        var residents: [Int] = []
        for cycle in 1...InlineLifecycle.cycles {
            if let problem = once(runtime, plays: plays, seconds: cycle == 1 ? 1 : 0.3) {
                for _ in 0..<20 where process.isRunning && problem.contains("closed its socket") { usleep(50_000) }  // it is going down
                let ended = process.isRunning ? "" : " (the runtime process ended: \(Spawned.text(log).split(separator: "\n").suffix(2).joined(separator: " | ")))"
                findings.append(("lifecycle.repeat", "cycle \(cycle) of \(InlineLifecycle.cycles) in one process: \(problem)\(ended)"))
                return
            }
            usleep(200_000)  // threads the destroy ended are reaped
            let now = (InlineLifecycle.threads(of: process.pid), InlineLifecycle.descriptors(of: process.pid), InlineLifecycle.residentKiB(of: process.pid))
            residents.append(now.2)
            guard let first = baseline else {
                baseline = now
                continue
            }
            guard cycle == InlineLifecycle.cycles else { continue }
            let threads = now.0.subtracting(first.threads)
            if !threads.isEmpty {
                findings.append(("lifecycle.leftovers", "\(threads.count) thread(s) still run after destroy, \(InlineLifecycle.cycles - 1) cycles on: "
                                 + threads.sorted().prefix(5).joined(separator: ", ")))
            }
            if now.1.count > first.descriptors.count {
                let known = Set(first.descriptors.values)
                let added = now.1.values.filter { !known.contains($0) }.sorted()
                findings.append(("lifecycle.leftovers", "\(now.1.count - first.descriptors.count) descriptor(s) stay open after destroy, "
                                 + "\(InlineLifecycle.cycles - 1) cycles on: \(added.prefix(5).joined(separator: ", "))"))
            }
            // A leak grows with every cycle; the allocator's arenas grow in steps and then stay.
            let growth = zip(residents.dropFirst(), residents).map { $0 - $1 }
            if let least = growth.min(), least > InlineLifecycle.residentGrowthKiB {
                findings.append(("lifecycle.leftovers", "the runtime's resident memory grew \((now.2 - first.resident) / 1024) MiB over "
                                 + "\(InlineLifecycle.cycles - 1) cycles of load, play and unload, at least \(least / 1024) MiB each: "
                                 + "memory it allocated is not freed at destroy"))
            }
        }
    }

    /// One load, play for `seconds` (when it plays) and unload; the problem, or nil.
    private mutating func once(_ runtime: RuntimeConnection, plays: Bool, seconds: Double) -> String? {
        do {
            _ = try runtime.call("apps.load", ["path": .string(bundle)])
        } catch {
            return "apps.load: \(error.message)"
        }
        if plays {
            do {
                _ = try runtime.call("apps.launch", item.map { ["id": .string(id), "item": .string($0)] } ?? ["id": .string(id)])
            } catch {
                return "apps.launch: \(error.message)"
            }
            usleep(UInt32(seconds * 1_000_000))
            var app = listed(runtime)
            if app?["streaming"]?.boolValue != true { return "launched, it does not play" }
            if renderTimes == nil {
                // Timed over a second of render calls, however late a busy machine started them.
                let until = Monotonic.now + InlineLifecycle.timingGraceSeconds
                while (app?["renderMs"]?["calls"]?.intValue ?? 0) < InlineLifecycle.timedCalls && Monotonic.now < until {
                    usleep(100_000)
                    app = listed(runtime)
                }
                renderTimes = app?["renderMs"]
            }
        }
        do {
            _ = try runtime.call("apps.unload", ["id": .string(id)])
        } catch {
            return "apps.unload: \(error.message)"
        }
        return nil
    }

    /// Its entry in `apps.list`, or nil.
    private func listed(_ runtime: RuntimeConnection) -> JSONValue? {
        (try? runtime.call("apps.list"))?["apps"]?.arrayValue?.first { $0["id"]?.stringValue == id }
    }

    /// The process's resident memory (VmRSS), in KiB.
    static func residentKiB(of pid: pid_t) -> Int {
        let line = SystemFile.read("/proc/\(pid)/status")?.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// The process's threads, as "name (tid)".
    static func threads(of pid: pid_t) -> Set<String> {
        Set((FolderEntries.names(in: "/proc/\(pid)/task") ?? []).map { tid in
            let name = SystemFile.read("/proc/\(pid)/task/\(tid)/comm", limit: 64)?.filter { $0 != "\n" } ?? "?"
            return "\(name) (\(tid))"
        })
    }

    /// The process's descriptors and what each points at.
    static func descriptors(of pid: pid_t) -> [String: String] {
        var found: [String: String] = [:]
        var target = [CChar](repeating: 0, count: 512)
        for name in FolderEntries.names(in: "/proc/\(pid)/fd") ?? [] {
            let count = readlink("/proc/\(pid)/fd/\(name)", &target, target.count - 1)
            found[name] = count > 0 ? String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        }
        return found
    }
}
