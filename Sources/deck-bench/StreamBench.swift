import CDeckPlugin
import COpus
import DeckRuntime
import Glibc

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
        try freewheelSideBySide(pcm: pcm, work: work)
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
            print("| \(name) | \(String(format3: m.wall)) | \(String(format3: m.cpu)) | \(Int(Double(seconds) / max(m.wall, 1e-6))) | "
                + "\(String(format2: m.wall / reference.wall))× | \(String(format2: m.cpu / reference.cpu))× |")
        }
        let pairs = zip(pipeline, bare).map { $0.wall / $1.wall }.sorted()
        print("\nPipeline against the bare loop run just after it, wall, pair by pair: \(String(format2: pairs.first!))–\(String(format2: pairs.last!))× "
              + "over \(pairs.count) pairs.")
        print("Goal: the pipeline within 5% of bare libopus (wall ≤ 1.05×), faster than both tools.\n")
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
            runtime.onOutputFinished = { [unowned runtime] in runtime.shutdown() }
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
    /// With `continuing`, the PCM repeats and after each frame it says whether to go on.
    static func bareEncode(_ pcm: [Float], paced: Bool = false, wakingAThread: Bool = false, continuing: (() -> Bool)? = nil) {
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
            let count = samples.count / 1920
            var frame = 0
            repeat {
                _ = opus_encode_float(encoder, samples.baseAddress! + frame % count * 1920, 960, &packet, 4000)
                if wakingAThread { _ = write(doorbell[1], &byte, 1) }
                if paced {
                    deadline.tv_nsec += 20_000_000
                    if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
                    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil)
                }
                frame += 1
            } while continuing?() ?? (frame < count)
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
