import Glibc

/// deckd start-up: exec → "ready" with 0, 5 and 100 plugins, against `deckd --version` (exec → exit,
/// the floor any Swift process on this machine pays), and peak resident memory against 0 plugins.
/// Plugins run inline here; `isolation` measures them in host processes.
struct StartupBench {
    var options: BenchOptions

    func run() throws {
        let deckd = options.bin + "/deckd"
        let work = try TemporaryFolder()
        let generated = try BenchPlugin.build(in: work.path)

        let none = work.path + "/none"
        let five = work.path + "/five"
        let hundred = work.path + "/hundred"
        for dir in [none, five, hundred] { mkdir(dir, 0o755) }
        try copyBundle(options.bin + "/plugins/Tone.deckplugin", to: five + "/Tone.deckplugin")
        if let pluginC = options.pluginC { try copyBundle(pluginC, to: five + "/Hello.deckplugin") }
        let generatedInFive = 5 - (options.pluginC == nil ? 1 : 2)
        for index in 0..<generatedInFive { try generated.bundle(number: index, in: five) }
        for index in 0..<100 { try generated.bundle(number: index, in: hundred) }

        print("## startup (\(options.runs) runs each, median / p90)\n")
        print("| case | exec → ready (ms) | ratio to `deckd --version` | peak RSS (MiB) |")
        print("|---|---|---|---|")
        let floor = try measure(runs: options.runs) { try spawnVersion(deckd) }
        print(row("`deckd --version` (exec → exit)", floor, floor, rss: nil))
        var rssNone = 0
        for (name, dir, expected) in [("0 plugins", none, 0), ("5 plugins (1 Swift, 4 C)", five, 5), ("100 plugins (C)", hundred, 100)] {
            var rss: [Int] = []
            let times = try measure(runs: options.runs) {
                let (ms, kib) = try spawnReady(deckd, dir, expected: expected)
                rss.append(kib)
                return ms
            }
            let peak = rss.sorted()[rss.count / 2]
            if expected == 0 { rssNone = peak }
            print(row(name, times, floor, rss: peak))
        }
        print("\nResident memory of 0 plugins is the runtime core: \(String(format1: Double(rssNone) / 1024)) MiB.")
        let idle = try (0..<3).map { _ in try idleWakeUps(deckd, none) }
        let wakes = idle.map(\.wakesPerSecond).sorted(), exits = idle.map(\.exitMilliseconds).sorted()
        print("Idle with 0 plugins, 3 runs of 2 s after ready: \(wakes.map { String(format1: $0) }.joined(separator: ", ")) wake-ups per second "
              + "(all of deckd's threads); SIGTERM → exit \(exits.map { String(format1: $0) }.joined(separator: ", ")) ms.")
        let apps = try (0..<3).map { _ in try idleWakeUps(deckd, options.bin + "/plugins", isolation: "process", children: true) }
        print("Idle with the first-party apps, each in its host, 3 runs of 2 s a second after ready: "
              + "\(apps.map(\.wakesPerSecond).sorted().map { String(format1: $0) }.joined(separator: ", ")) wake-ups per second "
              + "(all the threads of deckd and of its children).")
        print("Goals: 5 plugins ready < 150 ms, 100 plugins < 1000 ms, 5 plugins < 25 MiB resident.\n")
    }

    private func row(_ name: String, _ times: [Double], _ floor: [Double], rss: Int?) -> String {
        let median = times[times.count / 2], p90 = times[times.count * 9 / 10]
        let ratio = median / floor[floor.count / 2]
        let memory = rss.map { String(format1: Double($0) / 1024) } ?? "—"
        return "| \(name) | \(String(format1: median)) / \(String(format1: p90)) | \(String(format2: ratio))× | \(memory) |"
    }

    private func measure(runs: Int, _ body: () throws -> Double) throws -> [Double] {
        _ = try body()  // warm the page cache
        return try (0..<runs).map { _ in try body() }.sorted()
    }

    private func spawnVersion(_ deckd: String) throws -> Double {
        let child = try Subprocess(deckd, ["--version"])
        guard child.finish() == 0 else { throw BenchError("deckd --version failed: \(child.output)") }
        return child.elapsedMilliseconds()
    }

    private func spawnReady(_ deckd: String, _ dir: String, expected: Int) throws -> (Double, Int) {
        let child = try Subprocess(deckd, ["--plugins", dir, "--log-level", "info", "--isolation", "inline"])
        guard let ms = child.millisecondsUntil("deckd: ready") else { throw BenchError("deckd exited early:\n\(child.output)") }
        let kib = child.peakResidentKiB()
        let status = child.finish(signal: SIGTERM)
        guard child.output.contains("ready: \(expected) plugin(s) loaded, 0 refused"), status == 0 else {
            throw BenchError("deckd did not load \(expected) plugins cleanly (exit \(status)):\n\(child.output)")
        }
        return (ms, kib)
    }

    /// How often an idle deckd's threads wake (voluntary context switches: each sleep ended), and
    /// how long SIGTERM then takes to end it.
    private func idleWakeUps(_ deckd: String, _ dir: String, isolation: String = "inline",
                             children: Bool = false) throws -> (wakesPerSecond: Double, exitMilliseconds: Double) {
        let arguments = ["--plugins", dir, "--log-level", "info", "--isolation", isolation, "--state", "none"]
        // Apps settle first (a library scans its folders): a second after ready.
        let scratch = try TemporaryFolder()
        let child = try Subprocess(deckd, arguments + (children ? ["--socket", scratch.path + "/s", "--sink", "file:\(scratch.path)/out.opus"] : []))
        guard child.millisecondsUntil("deckd: ready") != nil else { throw BenchError("deckd exited early:\n\(child.output)") }
        if children { usleep(1_000_000) }
        let before = child.sleepsEnded(withChildren: children)
        usleep(2_000_000)
        let wakes = Double(child.sleepsEnded(withChildren: children) - before) / 2
        let signalled = Subprocess.now()
        guard child.finish(signal: SIGTERM) == 0 else { throw BenchError("deckd did not stop cleanly:\n\(child.output)") }
        return (wakes, Double(Subprocess.now() - signalled) / 1e6)
    }

    private func copyBundle(_ source: String, to target: String) throws {
        mkdir(target, 0o755)
        for name in try TemporaryFolder.list(source) {
            try TemporaryFolder.copyFile(source + "/" + name, to: target + "/" + name)
        }
    }
}

extension String {
    init(format1 value: Double) { self = String(Int((value * 10).rounded()) / 10) + "." + String(Int((value * 10).rounded()) % 10) }
    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        self = "\(hundredths / 100)." + (hundredths % 100 < 10 ? "0" : "") + "\(hundredths % 100)"
    }
}
