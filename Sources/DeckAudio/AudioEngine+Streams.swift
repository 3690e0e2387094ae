import DeckMedia

/// Streams in the mix: opening, closing, routing and their gains, each change sent to the audio
/// thread as a command and kept in `streams` for the next run.
extension AudioEngine {
    /// Starts pulling `source` into the mix; returns the stream's index in the mixer.
    /// The stream fades in from its very first sample (an S-curve over `declickMilliseconds`).
    public func openStream(_ source: RenderSource, gain: Float = 1, counters: StreamCounters, buses: UInt8 = 1) throws(AudioEngineError) -> Int {
        var slot = (0..<Mixer.capacity).first { streams[$0] == nil && isFree($0) }
        // A burst of switches between two frames can leave every free slot still ending a closed
        // stream: then wait (about a frame) for the audio thread to end them.
        for _ in 0..<400 where slot == nil && threadRunning && (0..<Mixer.capacity).contains(where: { streams[$0] == nil }) {
            pauseAndDrain()
            slot = (0..<Mixer.capacity).first { streams[$0] == nil && isFree($0) }
        }
        guard let stream = slot else { throw .tooManyStreams(Mixer.capacity) }
        streams[stream] = (source, counters, gain, buses)
        send(.open(stream: stream, source: source, gain: 0, counters: Unmanaged.passUnretained(counters), buses: buses))
        send(.ramp(stream: stream, target: gain, samples: declickSamples, curve: .sCurve))
        return stream
    }

    /// Stops pulling the stream; when this returns its render function is not running and will
    /// not run again. It does not wait for a fade: on its next frame the audio thread ends the
    /// stream with its last frame's reflected tail (10 ms), while the loop goes on.
    public func closeStream(_ stream: Int) {
        guard streams.removeValue(forKey: stream) != nil else { return }
        guard threadRunning else { return waitUntilApplied(send(.close(stream: stream))) }
        // A render that does not return within the render timeout is the audio watchdog's to end.
        _ = worker.mixer.beginClosing(stream: stream, timeoutNanoseconds: configuration.renderTimeoutMilliseconds * 1_000_000)
    }

    /// Whether a slot can take a new stream: not still ending a closed one (before the thread
    /// runs, or after it ended, the loop ends it itself).
    private func isFree(_ stream: Int) -> Bool {
        guard worker.mixer.isClosing(stream) else { return true }
        if !threadRunning { worker.mixer.close(stream: stream) }
        return !worker.mixer.isClosing(stream)
    }

    /// Routes streams to buses and encodes `activeBuses` from the next frame, tagging packets with
    /// `generation`. Audible streams whose buses change, and those in `alsoFading`, fade out first
    /// and back in after, so no bus and no sink that changes mix clicks.
    /// The packets of `tapBus` (-1: none) go to `packetTap` from the same frame.
    public func reroute(streams routes: [Int: UInt8], activeBuses: UInt8, generation: Int, tapBus: Int = -1, alsoFading: Set<Int> = []) {
        let moving = routes.compactMap { stream, buses in streams[stream].map { $0.buses != buses ? stream : nil } ?? nil }
        let fading = Set(moving).union(alsoFading).filter { (streams[$0]?.gain ?? 0) > 0 }.sorted()
        fadeOut(fading)
        for (stream, buses) in routes.sorted(by: { $0.key < $1.key }) where streams[stream] != nil {
            streams[stream]?.buses = buses
            send(.route(stream: stream, buses: buses))
        }
        self.activeBuses = activeBuses
        self.generation = generation
        self.tapBus = tapBus
        waitUntilApplied(send(.activate(buses: activeBuses, generation: generation, tapBus: tapBus)))
        for stream in fading {
            send(.ramp(stream: stream, target: streams[stream]?.gain ?? 0, samples: declickSamples, curve: .sCurve))
        }
    }

    /// Ramps the streams to silence (an S-curve over `declickMilliseconds`) and, while the output
    /// runs, waits until the fade has been rendered: about one frame.
    private func fadeOut(_ fading: [Int]) {
        guard !fading.isEmpty else { return }
        var last = 0
        for stream in fading { last = send(.ramp(stream: stream, target: 0, samples: declickSamples, curve: .sCurve)) }
        guard threadRunning else { return }
        waitUntilApplied(last)
        let faded = stats.frames.load(ordering: .relaxed) + (declickSamples + configuration.frameSize.samples - 1) / configuration.frameSize.samples + 1
        while threadRunning && stats.frames.load(ordering: .relaxed) < faded { pauseAndDrain() }
    }

    private var declickSamples: Int { Int(configuration.declickMilliseconds * 48) }

    /// The gain `stream` is at or ramping to (0 for none).
    func targetGain(of stream: Int) -> Float { streams[stream]?.gain ?? 0 }

    /// Moves a stream's gain to `target` over `milliseconds`, sample-accurately.
    public func rampGain(_ stream: Int, to target: Float, milliseconds: Double, curve: GainRamp.Curve = .exponential) {
        guard streams[stream] != nil else { return }
        streams[stream]?.gain = target
        send(.ramp(stream: stream, target: target, samples: Int(milliseconds * 48), curve: curve))
    }
}
