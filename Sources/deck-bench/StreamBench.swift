import CDeckPlugin
import COpus
import CProcess
import DeckRuntime
import Glibc
import Synchronization

/// The streaming pipeline against a bare libopus encode of the same PCM, in one run:
/// freewheel throughput (also against opusenc and ffmpeg), real-time pacing, and mixing cost.
struct StreamBench {
    var options: BenchOptions
    let seconds = 60
    let bitrate = 128_000

    func run() throws {
        let work = try TemporaryFolder()
        let pcm = StreamBench.stereoSine(seconds: seconds)
        print("## stream (\(seconds) s of 48 kHz stereo, 440 Hz left / 660 Hz right, Opus 128 kbit/s, complexity 10, 20 ms)\n")
        try throughput(pcm: pcm, work: work)
        try picker(pcm: pcm, work: work)
        try realTime(pcm: pcm, work: work)
        try sideBySide(pcm: pcm, work: work)
        mixing()
    }

    // MARK: Freewheel throughput

    private func throughput(pcm: [Float], work: TemporaryFolder) throws {
        var pipeline: [Measurement] = [], bare: [Measurement] = []
        for _ in 0..<max(options.runs / 3, 3) {  // interleaved, so drift hits both alike
            pipeline.append(try renderPipeline(pcm, to: work.path + "/pipeline.opus"))
            bare.append(Measurement.of { StreamBench.bareEncode(pcm) })
        }
        let wav = work.path + "/input.wav"
        try StreamBench.writeWAV(pcm, to: wav)
        let opusenc = try Measurement.children {
            guard TemporaryFolder.shell("opusenc --quiet --bitrate 128 --comp 10 --framesize 20 '\(wav)' '\(work.path)/opusenc.opus'") == 0 else {
                throw BenchError("opusenc failed (is opus-tools installed?)")
            }
        }
        let ffmpeg = try Measurement.children {
            guard TemporaryFolder.shell("ffmpeg -v error -nostdin -y -i '\(wav)' -c:a libopus -b:a 128k -compression_level 10 "
                + "-frame_duration 20 '\(work.path)/ffmpeg.opus'") == 0 else { throw BenchError("ffmpeg failed") }
        }
        let reference = bare.median
        print("### Freewheel throughput (median of \(bare.count) interleaved runs; tools run once)\n")
        print("| encoder | wall (s) | CPU (s) | × real time | wall vs bare libopus | CPU vs bare libopus |")
        print("|---|---|---|---|---|---|")
        for (name, m) in [("bare libopus loop (reference)", reference), ("Deck pipeline: render → mixer → encoder → Ogg file", pipeline.median),
                          ("opusenc (WAV in, process)", opusenc), ("ffmpeg -c:a libopus (WAV in, process)", ffmpeg)] {
            print("| \(name) | \(String(format3: m.wall)) | \(String(format3: m.cpu)) | \(Int(Double(seconds) / m.wall)) | "
                + "\(String(format2: m.wall / reference.wall))× | \(String(format2: m.cpu / reference.cpu))× |")
        }
        print("\nGoal: the pipeline within 5% of bare libopus (wall ≤ 1.05×), faster than both tools.\n")
    }

    /// What the output picker costs: app audio to one sink and a pinned stream to another makes two
    /// mixes, each encoded; against the one-mix pipeline and bare libopus, interleaved.
    private func picker(pcm: [Float], work: TemporaryFolder) throws {
        var one: [Measurement] = [], two: [Measurement] = [], bare: [Measurement] = []
        for _ in 0..<max(options.runs / 3, 3) {
            one.append(try renderPipeline(pcm, to: work.path + "/pipeline.opus"))
            two.append(try renderPipeline(pcm, to: work.path + "/rear.opus", pinnedTo: work.path + "/cabin.opus"))
            bare.append(Measurement.of { StreamBench.bareEncode(pcm) })
        }
        print("### Output picker (two streams: app audio to Rear, one pinned to Cabin; two mixes, two encoders)\n")
        print("| case | CPU (s) | CPU vs bare libopus |")
        print("|---|---|---|")
        for (name, m) in [("bare libopus loop (reference)", bare.median), ("one mix, one sink", one.median),
                          ("two mixes, two sinks", two.median)] {
            print("| \(name) | \(String(format3: m.cpu)) | \(String(format2: m.cpu / bare.median.cpu))× |")
        }
        print("\nEach mix costs one Opus encode; a sink sharing a mix costs only its writes.\n")
    }

    /// Measures the real runtime in freewheel into a file sink, from its creation until its loop
    /// returns, with a stream that plays `pcm` through the plugin render ABI. The sources' copies of
    /// `pcm` are made before the clock starts, as the bare loop's input is. With `pinnedTo`, a second
    /// stream is pinned to a second sink there and app audio goes to `path` only.
    private func renderPipeline(_ pcm: [Float], to path: String, pinnedTo cabin: String? = nil) throws -> Measurement {
        var configuration = RuntimeConfiguration.benchDefault
        configuration.audio.freewheel = true
        configuration.audio.durationSamples = pcm.count / 2
        configuration.sinks = ["file:\(path)?name=Rear"] + (cabin.map { ["file:\($0)?name=Cabin"] } ?? [])
        configuration.files.overwrite = true  // each interleaved run rewrites the same file
        configuration.session.alwaysActive = true  // the stream is opened directly, without focus
        let source = BenchSource(pcm: pcm), pinned = cabin.map { _ in BenchSource(pcm: pcm) }
        let measured = try Measurement.of {
            let runtime = try Runtime(configuration: configuration, logger: Logger(level: .error))
            try runtime.output.openStream(for: "app", source: source.renderSource, gain: 1, counters: StreamCounters())
            runtime.onOutputFinished = { runtime.shutdown() }
            try runtime.startOutput()
            if let pinned {
                try runtime.output.openStream(for: "prompt", source: pinned.renderSource, gain: 1, counters: StreamCounters(), pin: "Cabin")
                runtime.output.select(names: ["Rear"])
            }
            runtime.loop.run()  // returns once the file is closed and every handle is released
        }
        withExtendedLifetime((source, pinned)) {}
        return measured
    }

    // MARK: Real time

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
    private func realTime(pcm: [Float], work: TemporaryFolder) throws {
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
    private func sideBySide(pcm: [Float], work: TemporaryFolder) throws {
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
        print("| CPU vs bare libopus paced beside it | " + (1...rounds).map { "round \($0)" }.joined(separator: " | ") + " | median |")
        print("|---|" + String(repeating: "---|", count: rounds + 1))
        for (index, ratio) in ratios.enumerated() {
            print("| \(cases[index].name) | " + ratio.map { String(format2: $0) }.joined(separator: " | ")
                + " | \(String(format2: ratio.sorted()[ratio.count / 2]))× |")
        }
        print("\nBoth ask for the audio thread's real-time priority; the bare loop's deadlines fall 10 ms after the "
            + "audio thread's, so neither waits for the other. Round n runs on CPU n mod \(cpus). Goal: CPU ≤ 1.10× of paced bare.\n")
    }

    /// Runs `body` on a thread of its own pinned to `cpu`; the threads it starts inherit the pin.
    private static func onCPU<T: Sendable>(_ cpu: Int, _ body: @escaping @Sendable () throws -> T) throws -> T {
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

    // MARK: Mixing

    private func mixing() {
        print("### Mixer (sine streams, gain 0.5, 20 ms frames)\n")
        print("| streams | audio seconds mixed per CPU second | stream-seconds per CPU second |")
        print("|---|---|---|")
        for count in [1, 4, 16] {
            let mixer = Mixer(frames: 960)
            let sources = (0..<count).map { _ in BenchSource(pcm: StreamBench.stereoSine(seconds: 1)) }
            let counters = StreamCounters()
            for (stream, source) in sources.enumerated() {
                mixer.open(stream: stream, source: source.renderSource, gain: 0.5, counters: .passUnretained(counters))
            }
            let out = UnsafeMutablePointer<Float>.allocate(capacity: 1920)
            let frames = 5_000  // 100 s of audio
            let measured = Measurement.of { for _ in 0..<frames { mixer.mix(into: out) } }
            out.deallocate()
            let audioSeconds = Double(frames) / 50
            print("| \(count) | \(Int(audioSeconds / measured.cpu)) | \(Int(audioSeconds * Double(count) / measured.cpu)) |")
            withExtendedLifetime(sources) {}
        }
        print("")
    }

    // MARK: Reference pieces

    /// The same test signal Tone's stereo-440-660 renders, as one interleaved buffer.
    static func stereoSine(seconds: Int) -> [Float] {
        var pcm = [Float](repeating: 0, count: seconds * 96_000)
        for frame in 0..<(seconds * 48_000) {
            pcm[frame * 2] = 0.25 * Float(sin(2 * Double.pi * 440 * Double(frame) / 48_000))
            pcm[frame * 2 + 1] = 0.25 * Float(sin(2 * Double.pi * 660 * Double(frame) / 48_000))
        }
        return pcm
    }

    /// Starts the paced bare loop as the audio thread runs: on a thread of its own, which asks for
    /// the same real-time priority (granted or not, as for the audio thread), its first deadline
    /// `offset` nanoseconds from now.
    static func startBareOnAudioLikeThread(_ pcm: [Float], offset: Int = 0) -> BenchThread {
        BenchThread {
            var parameters = sched_param(sched_priority: AudioEngine.realtimePriority)
            pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
            var pause = timespec(tv_sec: offset / 1_000_000_000, tv_nsec: offset % 1_000_000_000)
            nanosleep(&pause, nil)
            StreamBench.bareEncode(pcm, paced: true)
        }
    }

    /// libopus alone: create, configure as the runtime does, encode every 20 ms frame; when paced,
    /// each frame waits for its absolute deadline as the audio thread does, and `wakingAThread`
    /// wakes a second thread after each encode, as the audio thread wakes the loop for a packet.
    static func bareEncode(_ pcm: [Float], paced: Bool = false, wakingAThread: Bool = false) {
        var error: Int32 = 0
        let encoder = opus_encoder_create(48_000, 2, OPUS_APPLICATION_AUDIO, &error)!
        defer { opus_encoder_destroy(encoder) }
        deck_opus_set_bitrate(encoder, 128_000)
        deck_opus_set_complexity(encoder, 10)
        var doorbell: [Int32] = [-1, -1]
        if wakingAThread { pipe(&doorbell) }
        let waiter = wakingAThread ? BenchThread { [reader = doorbell[0]] in
            var byte: UInt8 = 0
            while read(reader, &byte, 1) == 1 {}  // until the write end closes
        } : nil
        var packet = [UInt8](repeating: 0, count: 4000)
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        var byte: UInt8 = 1
        pcm.withUnsafeBufferPointer { samples in
            for frame in 0..<(samples.count / 1920) {
                _ = opus_encode_float(encoder, samples.baseAddress! + frame * 1920, 960, &packet, 4000)
                if wakingAThread { _ = write(doorbell[1], &byte, 1) }
                if paced {
                    deadline.tv_nsec += 20_000_000
                    if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
                    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil)
                }
            }
        }
        if let waiter {
            close(doorbell[1])
            waiter.join()
            close(doorbell[0])
        }
    }

    /// A 32-bit float WAV file, the input the tools read.
    static func writeWAV(_ pcm: [Float], to path: String) throws {
        func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        let dataBytes = UInt32(pcm.count * 4)
        var header = Array("RIFF".utf8) + le(36 + dataBytes) + Array("WAVEfmt ".utf8) + le(UInt32(16)) + le(UInt16(3))
        header += le(UInt16(2)) + le(UInt32(48_000)) + le(UInt32(48_000 * 8)) + le(UInt16(8)) + le(UInt16(32))
        header += Array("data".utf8) + le(dataBytes)
        guard let file = fopen(path, "wb") else { throw BenchError("cannot write \(path)") }
        defer { fclose(file) }
        fwrite(header, 1, header.count, file)
        pcm.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, file) }
    }
}

/// A stream that plays a PCM buffer in a loop, shaped as a plugin so it goes through the render ABI.
final class BenchSource {
    struct State {
        var samples: UnsafeMutablePointer<Float>
        var count: Int
        var position = 0
    }

    let state: UnsafeMutablePointer<State>
    let plugin: UnsafeMutablePointer<deck_plugin_t>

    init(pcm: [Float]) {
        let samples = UnsafeMutablePointer<Float>.allocate(capacity: pcm.count)
        samples.initialize(from: pcm, count: pcm.count)
        state = .allocate(capacity: 1)
        state.initialize(to: State(samples: samples, count: pcm.count))
        plugin = .allocate(capacity: 1)
        plugin.initialize(to: deck_plugin_t())
        plugin.pointee.plugin_data = UnsafeMutableRawPointer(state)
    }

    var renderSource: RenderSource {
        RenderSource(plugin: plugin) { plugin, frames, out in
            let state = plugin!.pointee.plugin_data!.assumingMemoryBound(to: State.self)
            var written = 0
            let wanted = Int(frames) * 2
            while written < wanted {
                let chunk = min(wanted - written, state.pointee.count - state.pointee.position)
                (out! + written).update(from: state.pointee.samples + state.pointee.position, count: chunk)
                written += chunk
                state.pointee.position = (state.pointee.position + chunk) % state.pointee.count
            }
            return frames
        }
    }

    deinit {
        state.pointee.samples.deallocate()
        state.deallocate()
        plugin.deallocate()
    }
}

extension String {
    init(format3 value: Double) {
        let thousandths = Int((value * 1000).rounded())
        let fraction = thousandths % 1000
        self = "\(thousandths / 1000)." + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + "\(fraction)"
    }
}
