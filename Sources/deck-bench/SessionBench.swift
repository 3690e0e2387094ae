import DeckRuntime
import Glibc

/// Focus decisions per second, and how many audio frames pass between a decision on the loop and
/// the mixer applying its first ramp sample.
struct SessionBench {
    var options: BenchOptions

    func run() throws {
        print("## session\n")
        decisions()
        volumeCost()
        try rampLatency()
    }

    /// What a volume group below full costs the mixer: the same 4 streams mixed at gain 1 (the
    /// ramp's fast path: no multiply) and at a group's -15 dB (a multiply per sample), interleaved.
    private func volumeCost() {
        let streams = 4
        let sources = (0..<streams).map { _ in BenchSource(pcm: StreamBench.stereoSine(seconds: 1)) }
        let counters = StreamCounters()
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 1920)
        defer { out.deallocate() }
        func mixCPU(gain: Float) -> Double {
            let mixer = Mixer(frames: 960)
            for (stream, source) in sources.enumerated() {
                mixer.open(stream: stream, source: source.renderSource, gain: gain, counters: .passUnretained(counters))
            }
            return Measurement.of { for _ in 0..<5_000 { mixer.mix(into: out) } }.cpu
        }
        var full: [Double] = [], reduced: [Double] = []
        for _ in 0..<5 {
            full.append(mixCPU(gain: 1))
            reduced.append(mixCPU(gain: Float(pow(10, -15.0 / 20))))
        }
        let fullCPU = full.sorted()[2], reducedCPU = reduced.sorted()[2]
        print("| 4 streams, 100 s of audio (median of 5, interleaved) | mixer CPU (s) | ratio |")
        print("|---|---|---|")
        print("| every group at full level (reference) | \(String(format3: fullCPU)) | 1.00× |")
        print("| the group at index 30 (-15 dB) | \(String(format3: reducedCPU)) | \(String(format2: reducedCPU / fullCPU))× |")
        print("\nA volume group adds no work of its own: its gain is folded into each stream's one gain ramp; "
              + "below full it costs that ramp's multiply.\n")
        withExtendedLifetime(sources) {}
    }

    /// 12 holders (safety and vehicle-status chimes, which coexist with every context) and 100
    /// plugins asking in turn for every context: each decision weighs all 12 cells.
    private func decisions() {
        var arbiter = SessionArbiter()
        for index in 0..<12 {
            _ = arbiter.request(FocusRequest(owner: .integrator("resident\(index)"), context: index % 2 == 0 ? .safety : .vehicleStatus,
                                             type: .gainTransientMayDuck))
        }
        let contexts = AudioContext.allCases
        let rounds = 200_000
        var granted = 0
        let measured = Measurement.of {
            for round in 0..<rounds {
                let owner = FocusOwner.plugin("org.example.p\(round % 100)")
                let request = FocusRequest(owner: owner, context: contexts[round % contexts.count], type: .gainTransientMayDuck)
                if arbiter.request(request).result == .granted { granted += 1 }
                _ = arbiter.abandon(owner)
            }
        }
        let perSecond = Double(rounds * 2) / measured.cpu
        print("| work | decisions (request + abandon) | CPU (s) | decisions per CPU second | per 20 ms audio frame |")
        print("|---|---|---|---|---|")
        print("| \(arbiter.holders.count) holders, 100 plugins, all 12 contexts | \(rounds * 2) | \(String(format3: measured.cpu)) | "
            + "\(Int(perSecond)) | \(Int(perSecond / 50)) |")
        print("\n(\(granted) of \(rounds) requests granted against the 12 holders.)\n")
    }

    /// Real runtime, paced: a stream playing, an integrator prompt ducks it; count the frames from the
    /// decision to the frame that starts with the ramp applied.
    private func rampLatency() throws {
        var configuration = RuntimeConfiguration.benchDefault
        configuration.sinks = []
        let runtime = try Runtime(configuration: configuration, logger: Logger(level: .error))
        guard let tone = runtime.plugins.load(options.bin + "/plugins/Tone.deckplugin") else { throw BenchError("cannot load Tone") }
        try tone.activate()
        try runtime.focus.play(pluginID: tone.id, item: "sine-440")
        var latencies: [Int] = []
        let trials = 40
        var trial = 0
        let timer = try LoopTimer(loop: runtime.loop)
        let prompt = FocusOwner.integrator("prompt")
        var pendingFrame: Int?
        timer.start(after: 200, repeat: 60) {
            let stats = runtime.audio.stats
            if let decided = pendingFrame {
                let applied = stats.lastCommandFrame.load(ordering: .relaxed)
                guard applied >= decided else { return }
                latencies.append(applied - decided)
                pendingFrame = nil
                runtime.focus.abandonFocus(prompt)
                return
            }
            guard trial < trials else {
                timer.close()
                runtime.shutdown()
                return
            }
            trial += 1
            pendingFrame = stats.frames.load(ordering: .relaxed)
            _ = runtime.focus.requestFocus(FocusRequest(owner: prompt, context: .navigation, type: .gainTransientMayDuck))
        }
        runtime.loop.run()
        let sorted = latencies.sorted()
        print("| ramp start after the decision, in audio frames (\(latencies.count) prompts, 20 ms frames) | p50 | max |")
        print("|---|---|---|")
        print("| frames counted from the one in progress at the decision | \(sorted[sorted.count / 2]) | \(sorted.last ?? -1) |")
        print("\nGoal: the ramp starts on the next audio frame after the decision (≤ 1).\n")
    }
}
