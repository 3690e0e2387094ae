import CProcess
import DeckRuntime
import Glibc
import Synchronization

/// Real time: the runtime paced, against bare libopus paced by the same deadlines, measured one
/// after the other and side by side on one CPU.
extension StreamBench {
    /// Where the paced runtime's packets go: an Ogg file sink, which takes them 500 ms at a time,
    /// a callback sink that takes each one on the loop as soon as it is encoded, or a C function
    /// on the audio thread (libdeck's audio-thread packet callback).
    private enum PacedSink {
        case file(String)
        case callback
        case audioThread
    }

    /// Rounds of the runtime paced and of bare libopus paced by the same deadlines, interleaved, so
    /// the VM's drift falls on all alike; each ratio is the median of the rounds'. A sink taking each
    /// packet at once wakes the loop every frame, so its reference also wakes a second thread each frame.
    func realTime(pcm: [Float], work: TemporaryFolder) throws {
        let rounds = 3, seconds = max(5, options.realtimeSeconds / rounds)
        let audio = Array(pcm.prefix(seconds * 96_000))
        var batched: [PacedRun] = [], eachPacket: [PacedRun] = [], onAudioThread: [PacedRun] = []
        var bare: [Measurement] = [], bareWaking: [Measurement] = [], bareThread: [Measurement] = []
        for _ in 0..<rounds {
            batched.append(try pacedRuntime(pcm: pcm, seconds: seconds, sink: .file(work.path + "/paced.opus")))
            bare.append(Measurement.of { StreamBench.bareEncode(audio, paced: true) })
            bareThread.append(Measurement.of { StreamBench.startBareOnAudioLikeThread(audio).join() })
            eachPacket.append(try pacedRuntime(pcm: pcm, seconds: seconds, sink: .callback))
            bareWaking.append(Measurement.of { StreamBench.bareEncode(audio, paced: true, wakingAThread: true) })
            onAudioThread.append(try pacedRuntime(pcm: pcm, seconds: seconds, sink: .audioThread))
        }
        let hot = Measurement.of { StreamBench.bareEncode(audio) }
        func ms(_ nanoseconds: Int) -> String { String(format3: Double(nanoseconds) / 1e6) }
        func cpu(_ runs: [Measurement]) -> String { runs.map { String(format3: $0.cpu) }.joined(separator: " | ") }
        func ratios(_ runs: [PacedRun], _ references: [Measurement]) -> [Double] { zip(runs, references).map { $0.measured.cpu / $1.cpu } }
        func median(_ values: [Double]) -> String { String(format2: values.sorted()[values.count / 2]) + "×" }
        let sinks = [("Ogg file sink (packets 500 ms at a time)", batched), ("callback sink (each packet at once)", eachPacket),
                     ("packet callback on the audio thread", onAudioThread)]
        print("### Real time (\(rounds) rounds of \(seconds) s paced, interleaved with bare libopus paced; one stream playing the same PCM)\n")
        print("| sink (last round) | frames | late events | dropped packets | underruns | lateness p50 / p99 / max (ms) |")
        print("|---|---|---|---|---|---|")
        for (name, runs) in sinks {
            let last = runs[runs.count - 1]
            print("| \(name) | \(last.frames) | \(last.lateEvents) | \(last.dropped) | \(last.underruns) | "
                + "\(ms(last.lateness.quantile(0.5))) / \(ms(last.lateness.quantile(0.99))) / \(ms(last.lateness.maximum)) |")
        }
        print("\n| CPU for \(seconds) s of audio | round 1 | round 2 | round 3 | median ratio |")
        print("|---|---|---|---|---|")
        print("| bare libopus, paced by the same 20 ms deadlines (reference) | \(cpu(bare)) | |")
        print("| Deck runtime, paced, \(sinks[0].0) | \(cpu(batched.map(\.measured))) | \(median(ratios(batched, bare))) |")
        print("| bare libopus paced, waking a second thread each frame (reference for per-packet sinks) | \(cpu(bareWaking)) | "
            + "\(median(zip(bareWaking, bare).map { $0.cpu / $1.cpu })) |")
        print("| Deck runtime, paced, \(sinks[1].0) | \(cpu(eachPacket.map(\.measured))) | \(median(ratios(eachPacket, bare))) |")
        print("| the same against the waking reference | | | | \(median(ratios(eachPacket, bareWaking))) |")
        print("| Deck runtime, paced, \(sinks[2].0) | \(cpu(onAudioThread.map(\.measured))) | \(median(ratios(onAudioThread, bare))) |")
        print("| bare libopus paced on a thread of its own at the audio thread's priority (like-for-like reference) | \(cpu(bareThread)) | "
            + "\(median(zip(bareThread, bare).map { $0.cpu / $1.cpu })) |")
        for (name, runs) in [sinks[0], sinks[2]] {
            print("| \(name) against the like-for-like reference | | | | \(median(ratios(runs, bareThread))) |")
        }
        print("\nRatios are against bare libopus paced unless said. Bare libopus unpaced (a hot loop) took \(String(format3: hot.cpu)) s. "
            + "Lateness is wake-up time minus deadline, in 10 µs buckets. Goals: p99 < 2 ms, zero underruns, CPU ≤ 1.10× of paced bare.\n")
        print("| where the runtime's CPU went in the last round (threads, from the kernel's counts) | CPU (s) | µs per frame | wake-ups per frame |")
        print("|---|---|---|---|")
        for (name, runs) in sinks {
            let last = runs[runs.count - 1], frames = Double(max(last.frames, 1))
            let audio = last.threads.filter { $0.name == "deck-audio" }, loop = last.threads.filter(\.isMain)
            let others = last.threads.filter { $0.name != "deck-audio" && !$0.isMain }
            for (role, threads) in [("audio thread: render, mix, encode", audio), ("loop: packets to the sinks, timers", loop),
                                    ("\(others.count) other threads (the file's writer)", others)] where !threads.isEmpty {
                let nanoseconds = threads.reduce(0) { $0 + $1.nanoseconds }, wakeUps = threads.reduce(0) { $0 + $1.wakeUps }
                guard nanoseconds > 100_000 else { continue }
                print("| \(name): \(role) | \(String(format3: Double(nanoseconds) / 1e9)) | "
                    + "\(String(format1: Double(nanoseconds) / 1e3 / frames)) | \(String(format2: Double(wakeUps) / frames)) |")
            }
        }
        let frames = Double(max(batched[batched.count - 1].frames, 1)), reference = bare[bare.count - 1].cpu
        print("| bare libopus paced, one thread (reference, last round) | \(String(format3: reference)) | \(String(format1: reference * 1e6 / frames)) | 1.00 |")
        print("")
    }

    /// The runtime and bare libopus paced at the same time on one CPU, the bare loop's deadlines
    /// half a frame after the audio thread's, so the VM's slow and quick phases fall on both alike
    /// (rounds of identical code run one after the other differ by up to ±10% here). Each round
    /// takes the next CPU; bare libopus beside bare libopus shows the method's own spread.
    func sideBySide(pcm: [Float], work: TemporaryFolder) throws {
        let rounds = 6, seconds = max(5, options.realtimeSeconds / 9)
        // The bare loop outlives the measured window: a second before it, half a second after.
        let audio = Array(pcm.prefix(seconds * 96_000 + 144_000))
        let cpus = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let cases: [(name: String, sink: PacedSink?)] = [
            ("Deck runtime, Ogg file sink (packets 500 ms at a time)", .file(work.path + "/beside.opus")),
            ("Deck runtime, callback sink (each packet at once)", .callback),
            ("Deck runtime, packet callback on the audio thread", .audioThread),
            ("bare libopus (the method's own spread)", nil),
        ]
        var ratios = [[Double]](repeating: [], count: cases.count)
        for round in 0..<rounds {
            for index in round % 2 == 0 ? Array(cases.indices) : cases.indices.reversed() {
                let sink = cases[index].sink
                let (measured, reference) = try StreamBench.onCPU(round % cpus) { [self] in
                    guard let sink else {
                        let first = StreamBench.startBareOnAudioLikeThread(audio)
                        let second = StreamBench.startBareOnAudioLikeThread(audio, offset: 10_000_000)
                        var pause = timespec(tv_sec: 1, tv_nsec: 0)
                        nanosleep(&pause, nil)
                        let from = (first.cpuSeconds, second.cpuSeconds)
                        pause = timespec(tv_sec: seconds, tv_nsec: 0)
                        nanosleep(&pause, nil)
                        let window = (first.cpuSeconds - from.0, second.cpuSeconds - from.1)
                        first.join()
                        second.join()
                        return window
                    }
                    let window = try pacedRuntime(pcm: pcm, seconds: seconds, sink: sink, beside: audio).window!
                    return (window.runtime, window.bare)
                }
                ratios[index].append(measured / reference)
            }
        }
        print("### Real time side by side (\(rounds) rounds of \(seconds) s; in each, the case and bare libopus paced at once on one CPU)\n")
        StreamBench.printRounds("CPU vs bare libopus paced beside it", names: cases.map(\.name), ratios: ratios)
        print("\nBoth ask for the audio thread's real-time priority; the bare loop's deadlines fall 10 ms after the "
            + "audio thread's, so neither waits for the other. Round n runs on CPU n mod \(cpus). Goal: CPU ≤ 1.10× of paced bare.\n")
    }

    /// A table of each case's ratio round by round, and its median.
    static func printRounds(_ heading: String, names: [String], ratios: [[Double]]) {
        guard let rounds = ratios.first?.count, rounds > 0 else { return }
        print("| \(heading) | " + (1...rounds).map { "round \($0)" }.joined(separator: " | ") + " | median |")
        print("|---|" + String(repeating: "---|", count: rounds + 1))
        for (name, ratio) in zip(names, ratios) {
            print("| \(name) | " + ratio.map { String(format2: $0) }.joined(separator: " | ") + " | \(String(format2: ratio.sorted()[ratio.count / 2]))× |")
        }
    }

    /// Runs `body` on a thread of its own pinned to `cpu`; the threads it starts inherit the pin.
    static func onCPU<T: Sendable>(_ cpu: Int, _ body: @escaping @Sendable () throws -> T) throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        BenchThread {
            let result: Result<T, any Error> = deck_pin_thread(Int32(cpu)) == 0 ? Result(catching: body)
                : .failure(BenchError("cannot run on CPU \(cpu): \(String(cString: strerror(errno)))"))
            outcome.withLock { $0 = result }
        }.join()
        return try outcome.withLock { $0! }.get()
    }

    private struct PacedRun {
        var measured: Measurement
        var threads: [ThreadCPU]
        /// CPU seconds of the runtime and of bare libopus beside it once both were steady, if it was.
        var window: (runtime: Double, bare: Double)?
        var frames = 0, lateEvents = 0, dropped = 0, underruns = 0
        var lateness: LatencyHistogram
    }

    /// A runtime playing `pcm` paced into `sink` for `seconds`. With `beside`, bare libopus paced on
    /// a thread of its own plays that at the same time, its deadlines half a frame after the audio
    /// thread's, and the run goes on a second longer: `window` is what each spent in the `seconds`
    /// after that first second, once both are steady.
    private func pacedRuntime(pcm: [Float], seconds: Int, sink: PacedSink, beside: [Float]? = nil) throws -> PacedRun {
        var configuration = RuntimeConfiguration.benchDefault
        configuration.sinks = []
        if case .file(let path) = sink {
            configuration.sinks = ["file:\(path)"]
            configuration.files.overwrite = true  // each round rewrites the same file
        }
        configuration.session.alwaysActive = true  // the stream is opened directly, without focus
        let runtime = try Runtime(configuration: configuration, logger: Logger(level: .error))
        let source = BenchSource(pcm: pcm)
        let counters = StreamCounters()
        _ = try runtime.audio.openStream(source.renderSource, counters: counters)
        switch sink {
        case .file: break
        case .callback: runtime.output.attach(CallbackSink(name: "bench") { _ in })
        case .audioThread:
            // As libdeck with only an audio-thread callback: its loop sink waits as long as batches may.
            let embedding = runtime.output.attach(CallbackSink(name: "bench", batchMilliseconds: .max) { _ in })
            runtime.output.tapPackets(ofSink: embedding.id)
            runtime.audio.packetTap.set({ _, _, _, _, _, _, _ in }, user: nil)
        }
        let stop = try LoopTimer(loop: runtime.loop), steady = try LoopTimer(loop: runtime.loop)
        let threadsBefore = ThreadCPU.snapshot()
        var threads: [ThreadCPU] = []
        var window: (runtime: Double, bare: Double)?
        let measured = try Measurement.of {
            try runtime.startOutput()
            let bare = beside.map { StreamBench.startBareOnAudioLikeThread($0, offset: 10_000_000) }
            func spent() -> (runtime: Double, bare: Double) {
                let bareCPU = bare?.cpuSeconds ?? 0
                return (Measurement.processCPU() - bareCPU, bareCPU)
            }
            let warmUp: UInt64 = bare == nil ? 0 : 1000
            var from = spent()
            steady.start(after: warmUp) { from = spent() }
            stop.start(after: warmUp + UInt64(seconds) * 1000) {
                let to = spent()
                window = (to.runtime - from.runtime, to.bare - from.bare)
                threads = ThreadCPU.spent(from: threadsBefore, to: ThreadCPU.snapshot())
                runtime.shutdown()
                stop.close()
                steady.close()
            }
            runtime.loop.run()
            bare?.join()
        }
        withExtendedLifetime(source) {}
        let stats = runtime.audio.stats
        return PacedRun(measured: measured, threads: threads, window: window, frames: stats.frames.load(ordering: .relaxed),
                        lateEvents: stats.lateEvents.load(ordering: .relaxed), dropped: stats.droppedPackets.load(ordering: .relaxed),
                        underruns: counters.underrunFrames.load(ordering: .relaxed), lateness: stats.lateness)
    }
}
