import DeckRuntime
import Glibc

/// What process isolation costs, against inline in the same run: CPU per stream (Tone rendered in
/// freewheel, runtime and host process counted together), the latency the ring adds (frames
/// queued when the mix takes one, in real time), underruns under heavy mixed load, start-up and
/// memory of 100 isolated plugins (with and without the sandbox and the zygote), the time from
/// a crash until the restarted plugin's audio flows again, and what a local listener of an HTTP
/// sink waits while the sink asks whether it is a plugin's.
struct IsolationBench {
    var options: BenchOptions

    func run() throws {
        let work = try TemporaryFolder()
        let tone = options.bin + "/plugins/Tone.deckplugin"
        print("## isolation (plugins in deck-plugin-host processes vs inline)\n")

        let seconds = 30
        var runs: [IsolationPolicy.Mode: [Measurement]] = [:]
        for _ in 0..<max(1, options.runs / 5) {
            for mode in [IsolationPolicy.Mode.inline, .process] {
                runs[mode, default: []].append(try freewheel(tone, mode: mode, seconds: seconds, folder: work.path))
            }
        }
        let inline = runs[.inline]!.median, process = runs[.process]!.median
        print("### One stream, \(seconds) s of Tone in freewheel (median of \(runs[.inline]!.count))\n")
        print("| mode | wall (s) | CPU, runtime + host (s) | CPU vs inline |")
        print("|---|---|---|---|")
        for (name, m) in [("inline", inline), ("process", process)] {
            print("| \(name) | \(String(format3: m.wall)) | \(String(format3: m.cpu)) | \(String(format2: m.cpu / inline.cpu))× |")
        }
        let perFrame = (process.cpu - inline.cpu) / Double(seconds * 50) * 1e6
        print("\nIsolation adds \(perFrame < 0 ? "-" : "")\(String(format1: abs(perFrame))) µs of CPU per 20 ms frame "
              + "(the wakes and copies of the ring and its host thread).\n")

        let pacedSeconds = min(options.realtimeSeconds, 10)
        let paced = try [IsolationPolicy.Mode.inline, .process].map { try realTime(tone, mode: $0, seconds: pacedSeconds) }
        print("### Real time (\(pacedSeconds) s paced each)\n")
        print("| mode | CPU, runtime + host (s) | CPU vs inline | µs of CPU a frame |")
        print("|---|---|---|---|")
        for (mode, run) in zip(["inline", "process"], paced) {
            print("| \(mode) | \(String(format3: run.cpu)) | \(String(format2: run.cpu / paced[0].cpu))× "
                  + "| \(String(format1: run.cpu / Double(pacedSeconds * 50) * 1e6)) |")
        }
        print("\nThe host keeps \(String(format2: paced[1].ahead)) frames rendered ahead on average when the mix takes one: "
              + "\(String(format1: paced[1].ahead * 20)) ms added at 20 ms frames "
              + "(isolation.aheadFrames is \(RuntimeConfiguration().isolation.aheadFrames)).\n")

        try underLoad(tone, seconds: options.realtimeSeconds)
        try startup(work.path)
        try restart(tone)
        try listeners(work.path)
        try receivers()
    }

    /// Tone in real time for `seconds`, inline then isolated, while `scripts/mixed-load.sh` keeps
    /// every core busy (busy loops, process starts, large buffers): underruns and late frames.
    private func underLoad(_ tone: String, seconds: Int) throws {
        print("### Under heavy mixed load (scripts/mixed-load.sh), \(seconds) s of Tone in real time each\n")
        print("| mode | underrun frames | late events (output) |")
        print("|---|---|---|")
        for mode in [IsolationPolicy.Mode.inline, .process] {
            let (runtime, plugin) = try paced(tone, mode: mode)
            try runtime.startOutput()
            _ = try runtime.focus.play(pluginID: plugin.id, item: nil)
            let load = try ChildProcess(loop: runtime.loop, path: "/bin/sh", arguments: ["scripts/mixed-load.sh"], descriptors: [])
            let stop = try LoopTimer(loop: runtime.loop)
            stop.start(after: UInt64(seconds) * 1000) {
                kill(-load.pid, SIGKILL)
                load.close()
                runtime.shutdown()
                stop.close()
            }
            runtime.loop.run()
            print("| \(mode.rawValue) | \(plugin.streamCounters.underrunFrames.load(ordering: .relaxed)) "
                  + "| \(runtime.audio.stats.lateEvents.load(ordering: .relaxed)) |")
        }
        print("")
    }

    /// Renders `seconds` of Tone into a file as fast as possible; CPU of this process and the host.
    private func freewheel(_ tone: String, mode: IsolationPolicy.Mode, seconds: Int, folder: String) throws -> Measurement {
        var configuration = RuntimeConfiguration()
        configuration.policy.isolation.defaultMode = mode
        configuration.audio.freewheel = true
        configuration.audio.durationSamples = seconds * 48_000
        configuration.sinks = ["file:\(folder)/\(mode.rawValue).opus"]
        configuration.files.overwrite = true
        configuration.session.alwaysActive = true
        let runtime = try Runtime(configuration: configuration, logger: Logger(level: .error))
        guard let plugin = runtime.plugins.load(tone) else { throw BenchError("Tone did not load") }
        try plugin.activate()
        var hostCPU = 0.0
        runtime.onOutputFinished = {
            hostCPU = plugin.processID.map(IsolationBench.cpuSeconds) ?? 0
            runtime.shutdown()
        }
        var measured = try Measurement.of {
            try runtime.startOutput()
            _ = try runtime.focus.play(pluginID: plugin.id, item: nil)
            runtime.loop.run()
        }
        measured.cpu += hostCPU
        return measured
    }

    /// A runtime pacing its output into a sink that drops it, with Tone loaded `mode` and active.
    private func paced(_ tone: String, mode: IsolationPolicy.Mode, logger: Logger = Logger(level: .error),
                       configure: (inout RuntimeConfiguration) -> Void = { _ in }) throws -> (Runtime, PluginInstance) {
        var configuration = RuntimeConfiguration()
        configuration.policy.isolation.defaultMode = mode
        configuration.sinks = []
        configuration.session.alwaysActive = true
        configure(&configuration)
        let runtime = try Runtime(configuration: configuration, logger: logger)
        runtime.output.attach(CallbackSink(name: "bench") { _ in })
        guard let plugin = runtime.plugins.load(tone) else { throw BenchError("Tone did not load") }
        try plugin.activate()
        return (runtime, plugin)
    }

    /// Tone paced in real time for `seconds`: CPU of this process and the host, and for a host the
    /// frames it had rendered ahead each time the mix took one.
    private func realTime(_ tone: String, mode: IsolationPolicy.Mode, seconds: Int) throws -> (cpu: Double, ahead: Double) {
        let (runtime, plugin) = try paced(tone, mode: mode)
        let stop = try LoopTimer(loop: runtime.loop)
        var ahead = 0.0, hostCPU = 0.0
        var measured = try Measurement.of {
            try runtime.startOutput()
            _ = try runtime.focus.play(pluginID: plugin.id, item: nil)
            stop.start(after: UInt64(seconds) * 1000) {
                ahead = plugin.framesAhead ?? 0
                hostCPU = plugin.processID.map(IsolationBench.cpuSeconds) ?? 0
                runtime.shutdown()
                stop.close()
            }
            runtime.loop.run()
        }
        measured.cpu += hostCPU
        return (measured.cpu, ahead)
    }

    /// deckd with 100 generated C plugins, inline and isolated (as shipped, without the sandbox,
    /// and with each host spawned instead of forked by the zygote): exec → ready, and memory
    /// (deckd's resident set, plus the hosts' proportional share, which counts shared pages once).
    private func startup(_ folder: String) throws {
        let generated = try BenchPlugin.build(in: folder)
        let hundred = folder + "/hundred"
        mkdir(hundred, 0o755)
        for index in 0..<100 { try generated.bundle(number: index, in: hundred) }
        let variants: [(name: String, mode: String, config: String)] = [
            ("inline", "inline", "{}"), ("process", "process", "{}"),
            ("process, no sandbox", "process", #"{"isolation": {"sandbox": false}}"#),
            ("process, no zygote", "process", #"{"isolation": {"zygote": false}}"#),
        ]
        print("### 100 plugins (C), deckd exec → ready (median of \(options.runs / 5 + 1))\n")
        print("| mode | ready (ms) | deckd resident (MiB) | hosts, proportional (MiB total / per host) |")
        print("|---|---|---|---|")
        for (number, variant) in variants.enumerated() {
            let config = folder + "/startup-\(number).json"
            try TemporaryFolder.write(variant.config, to: config)
            var results: [(ms: Double, deckd: Int, hosts: Int)] = []
            for _ in 0...options.runs / 5 {
                let child = try Subprocess(options.bin + "/deckd", ["--config", config, "--plugins", hundred, "--isolation", variant.mode,
                                                                    "--state", "none", "--sink", "file:\(folder)/startup.opus", "--overwrite-files",
                                                                    "--socket", folder + "/deck.sock"])
                guard let ms = child.millisecondsUntil("deckd: ready") else { throw BenchError("deckd exited early:\n\(child.output)") }
                // Hosts are deckd's children (forked by the zygote with CLONE_PARENT); the zygote is not a host.
                let hosts = IsolationBench.children(of: child.pid).filter { IsolationBench.isHost($0) }
                results.append((ms, IsolationBench.kibibytes("/proc/\(child.pid)/status", "VmRSS:"),
                                hosts.reduce(0) { $0 + IsolationBench.kibibytes("/proc/\($1)/smaps_rollup", "Pss:") }))
                guard child.finish(signal: SIGTERM) == 0, child.output.contains("ready: 100 plugin(s) loaded, 0 refused"),
                      variant.mode == "inline" || hosts.count == 100 else {
                    throw BenchError("deckd (\(variant.name)) did not run 100 plugins cleanly:\n\(child.output.suffix(2000))")
                }
            }
            let median = results.sorted { $0.ms < $1.ms }[results.count / 2]
            let hosts = variant.mode == "inline" ? "—" : "\(String(format1: Double(median.hosts) / 1024)) / \(String(format2: Double(median.hosts) / 1024 / 100))"
            print("| \(variant.name) | \(String(format1: median.ms)) | \(String(format1: Double(median.deckd) / 1024)) | \(hosts) |")
        }
        print("")
    }

    /// Whether `pid` is a plugin's host: `deck-plugin-host`, not the zygote (named `deck-zygote`).
    private static func isHost(_ pid: Int32) -> Bool {
        let arguments = (try? MachineInfo.readText("/proc/\(pid)/cmdline")) ?? ""
        let name = (try? MachineInfo.readText("/proc/\(pid)/comm")) ?? ""
        return arguments.contains("deck-plugin-host") && name != "deck-zygote\n"
    }

    /// Kills Tone's host with SIGSEGV while it plays and times until its restarted stream is open.
    private func restart(_ tone: String) throws {
        // The crashes are the point, not their log lines.
        let (runtime, plugin) = try paced(tone, mode: .process, logger: Logger(level: .error) { _ in }) {
            $0.isolation.restartDelayMilliseconds = 0
            $0.isolation.restartLimit = 100
        }
        try runtime.startOutput()
        _ = try runtime.focus.play(pluginID: plugin.id, item: nil)
        var times: [Double] = []
        for _ in 0..<options.runs {
            guard let current = runtime.plugins.plugin(id: plugin.id), let pid = current.processID else { throw BenchError("Tone is not isolated") }
            let start = Subprocess.now()
            kill(pid, SIGSEGV)
            while !(runtime.plugins.plugin(id: plugin.id).map { $0.processID != pid && runtime.output.hasStream($0.id) } ?? false) {
                runtime.loop.runNoWait()
                usleep(200)
                if Double(Subprocess.now() - start) / 1e9 > 10 { throw BenchError("Tone did not come back within 10 s") }
            }
            times.append(Double(Subprocess.now() - start) / 1e6)
        }
        runtime.shutdown()
        times.sort()
        print("### Crash → audio again (Tone killed with SIGSEGV while playing, \(times.count) times, restartDelayMs 0)\n")
        print("Median \(String(format1: times[times.count / 2])) ms, p90 \(String(format1: times[times.count * 9 / 10])) ms "
              + "(spawn, load, init, activate, resume); the default restartDelayMs adds 250 ms to the first restart.\n")
    }

    private static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? MachineInfo.readText("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func children(of parent: Int32) -> [Int32] {
        ((try? TemporaryFolder.list("/proc")) ?? []).compactMap { name -> Int32? in
            guard let pid = Int32(name), let stat = try? MachineInfo.readText("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent ? pid : nil
        }
    }

    private static func kibibytes(_ file: String, _ key: String) -> Int {
        let text = (try? MachineInfo.readText(file)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix(key) } ?? ""
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
}
