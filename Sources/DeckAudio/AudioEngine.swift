import DeckBase
import DeckMedia
import DeckStream
import Glibc
import Synchronization

/// The loop's handle on the audio thread: opens and closes streams, ramps gains, and receives the
/// encoded packets through a ring and a doorbell. Each start begins a fresh run (a new encoder and
/// a new stream for the sinks); streams and their gains carry over. Loop-thread-confined.
public final class AudioEngine {
    public let configuration: AudioConfiguration
    private var worker: AudioRenderLoop
    private var doorbell: AsyncDoorbell!
    /// Checks every frame that the audio thread advances.
    private var watchdog: LoopTimer!
    private var lastFramesBegun: Int64 = -1
    private var lastProgressAt: UInt64 = 0
    /// Runs on the loop when a render hung: the stream's index (already dropped from the mix).
    public var onHungStream: ((Int) -> Void)?
    private let loop: EventLoop
    private var thread: pthread_t?
    private var sentCommands = 0
    private var streams: [Int: (source: RenderSource, counters: StreamCounters, gain: Float, buses: UInt8)] = [:]
    /// The buses encoded and the routing generation their packets carry; kept across runs.
    private var activeBuses: UInt8 = 1
    private var generation = 0
    private var hasFinished = false
    private var joined = false
    public let stats = AudioStats()
    public let audioThread = ThreadIdentity()
    /// Each packet, in order, on the loop thread.
    public var onPacket: ((EncodedPacket) -> Void)?
    /// Once, after the last packet (duration reached or `stop()`).
    public var onFinished: (() -> Void)?
    /// The mix before encoding (interleaved stereo, sample count), on the loop thread, once `enablePCMTap` ran.
    public var onPCM: ((UnsafePointer<Float>, Int) -> Void)?
    private var tap: PCMTap?
    /// When packets were dropped since the last drain (the loop did not take them in time): how many.
    public var onDropped: ((Int) -> Void)?
    private var reportedDrops = 0

    public init(configuration: AudioConfiguration, loop: EventLoop) throws(AudioEngineError) {
        self.configuration = configuration
        self.loop = loop
        var drain: (() -> Void)?
        let doorbell: AsyncDoorbell
        do { doorbell = try AsyncDoorbell(loop: loop) { drain?() } } catch { throw .loop(error) }
        do {
            worker = try AudioRenderLoop(configuration: configuration, doorbell: doorbell.ringer, stats: stats, identity: audioThread)
        } catch {
            doorbell.close()
            throw .configuration(error)
        }
        self.doorbell = doorbell
        do { watchdog = try LoopTimer(loop: loop) } catch {
            doorbell.close()
            throw .loop(error)
        }
        drain = { [unowned self] in self.drainPackets() }
    }

    deinit {
        doorbell?.close()
        watchdog?.close()
    }

    /// Stops the thread if it runs and releases the doorbell, so the loop can end.
    public func close() {
        stop()
        doorbell?.close()
        doorbell = nil
        watchdog?.close()
        watchdog = nil
    }

    public var isRunning: Bool { thread != nil && !hasFinished }
    /// The encoder's delay in samples: the Ogg pre-skip.
    public var preSkip: Int { worker.lookahead }

    /// Starts a run of the audio thread: a fresh encoder, its packets a new stream for the sinks.
    public func start() throws(AudioEngineError) {
        if thread != nil {
            guard joined else { return }  // running
            do {
                worker = try AudioRenderLoop(configuration: configuration, doorbell: doorbell.ringer, stats: stats, identity: audioThread,
                                             activeBuses: activeBuses, generation: generation, tap: tap)
            } catch {
                throw .configuration(error)
            }
            thread = nil
            joined = false
            hasFinished = false
            sentCommands = 0  // counted against the new worker's applied commands
            for (index, stream) in streams.sorted(by: { $0.key < $1.key }) {
                worker.mixer.open(stream: index, source: stream.source, gain: stream.gain, counters: .passUnretained(stream.counters),
                                  buses: stream.buses)
            }
        }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        let context = Unmanaged.passRetained(worker).toOpaque()
        var handle = pthread_t()
        let status = pthread_create(&handle, &attributes, { context in
            let worker = Unmanaged<AudioRenderLoop>.fromOpaque(context!).takeRetainedValue()
            worker.run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<AudioRenderLoop>.fromOpaque(context).release()
            throw .thread(String(cString: strerror(status)))
        }
        thread = handle
        armWatchdog()
    }

    // MARK: Watchdog

    private func armWatchdog() {
        lastFramesBegun = -1
        let period = max(5, UInt64(configuration.frameSize.milliseconds.rounded(.up)))
        watchdog?.start(after: period, repeat: period) { [unowned self] in checkProgress() }
    }

    /// Whether the audio thread runs but has not begun a frame for longer than the render timeout.
    public var isStalled: Bool {
        threadRunning && lastFramesBegun == worker.framesBegun.load(ordering: .relaxed)
            && loop.now - lastProgressAt > UInt64(configuration.renderTimeoutMilliseconds)
    }

    private func checkProgress() {
        guard threadRunning else { return watchdog?.stop() ?? () }
        let begun = worker.framesBegun.load(ordering: .relaxed)
        if begun != lastFramesBegun {
            lastFramesBegun = begun
            lastProgressAt = loop.now
            return
        }
        let stream = worker.mixer.renderingStream.load(ordering: .relaxed)
        guard isStalled, stream >= 0 else { return }
        replaceHungThread(dropping: stream)
        onHungStream?(stream)
    }

    /// The audio thread is stuck in `stream`'s render: it is abandoned (detached; it ends on its
    /// own if the render ever returns) and a fresh thread carries the output on from the same
    /// frame with every other stream, so sinks see no break in the stream, only the lost frames.
    private func replaceHungThread(dropping stream: Int) {
        guard let stuck = thread else { return }
        let old = worker
        old.abandoned.store(true, ordering: .releasing)
        drainPackets()
        streams[stream] = nil
        let resume = old.framesBegun.load(ordering: .relaxed) - 1
        do {
            worker = try AudioRenderLoop(configuration: configuration, doorbell: doorbell.ringer, stats: stats, identity: audioThread,
                                         activeBuses: activeBuses, generation: generation, tap: tap, resumingAt: max(0, resume))
        } catch {
            return  // the same settings built the first; nothing to carry on with
        }
        pthread_detach(stuck)
        thread = nil
        joined = false
        sentCommands = 0
        for (index, open) in streams.sorted(by: { $0.key < $1.key }) {
            worker.mixer.open(stream: index, source: open.source, gain: open.gain, counters: .passUnretained(open.counters), buses: open.buses)
        }
        try? start()
    }

    /// Copies the mix into a one-second ring from the next frame on; `onPCM` receives it.
    public func enablePCMTap() {
        guard tap == nil else { return }
        let tap = PCMTap()
        self.tap = tap
        send(.tap(Unmanaged.passUnretained(tap)))
    }

    /// Frames of the PCM tap dropped because the loop fell a second behind.
    public var tapDroppedFrames: Int { tap?.droppedFrames.load(ordering: .relaxed) ?? 0 }

    /// The SCHED_FIFO priority of the output thread, and of isolated plugins' render threads.
    public static let realtimePriority = RenderSource.realtimePriority

    /// Moves the thread to real-time FIFO scheduling; false when the system refuses (no privilege).
    @discardableResult
    public func requestRealtimePriority() -> Bool {
        guard let thread else { return false }
        var parameters = sched_param(sched_priority: AudioEngine.realtimePriority)
        return pthread_setschedparam(thread, SCHED_FIFO, &parameters) == 0
    }

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
    public func reroute(streams routes: [Int: UInt8], activeBuses: UInt8, generation: Int, alsoFading: Set<Int> = []) {
        let moving = routes.compactMap { stream, buses in streams[stream].map { $0.buses != buses ? stream : nil } ?? nil }
        let fading = Set(moving).union(alsoFading).filter { (streams[$0]?.gain ?? 0) > 0 }.sorted()
        fadeOut(fading)
        for (stream, buses) in routes.sorted(by: { $0.key < $1.key }) where streams[stream] != nil {
            streams[stream]?.buses = buses
            send(.route(stream: stream, buses: buses))
        }
        self.activeBuses = activeBuses
        self.generation = generation
        waitUntilApplied(send(.activate(buses: activeBuses, generation: generation)))
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

    /// Moves a stream's gain to `target` over `milliseconds`, sample-accurately.
    public func rampGain(_ stream: Int, to target: Float, milliseconds: Double, curve: GainRamp.Curve = .exponential) {
        guard streams[stream] != nil else { return }
        streams[stream]?.gain = target
        send(.ramp(stream: stream, target: target, samples: Int(milliseconds * 48), curve: curve))
    }

    /// Ends the output: the thread flushes the encoder, the last packet is delivered, then `onFinished` runs.
    public func stop() {
        guard let thread, !joined else { return }
        worker.stopRequested.store(true, ordering: .releasing)
        while !worker.finished.load(ordering: .acquiring) {
            drainPackets()
            var pause = timespec(tv_sec: 0, tv_nsec: 500_000)
            nanosleep(&pause, nil)
        }
        pthread_join(thread, nil)
        joined = true
        drainPackets()
    }

    @discardableResult
    private func send(_ command: AudioCommand) -> Int {
        while !worker.commands.push(command) {
            var pause = timespec(tv_sec: 0, tv_nsec: 100_000)
            nanosleep(&pause, nil)
        }
        sentCommands += 1
        if !threadRunning { worker.applyCommands() }
        return sentCommands
    }

    /// Before start and after the thread ends, the loop may touch the mixer itself.
    private var threadRunning: Bool { thread != nil && !worker.finished.load(ordering: .acquiring) }

    private func waitUntilApplied(_ sequence: Int) {
        while worker.appliedCommands.load(ordering: .acquiring) < sequence {
            if !threadRunning { worker.applyCommands(); continue }
            pauseAndDrain()
        }
    }

    /// Takes the packets that arrived and sleeps 100 µs: one turn of a wait on the audio thread.
    private func pauseAndDrain() {
        drainPackets()
        var pause = timespec(tv_sec: 0, tv_nsec: 100_000)
        nanosleep(&pause, nil)
    }

    private func drainPackets() {
        let dropped = stats.droppedPackets.load(ordering: .relaxed)
        if dropped > reportedDrops {
            onDropped?(dropped - reportedDrops)
            reportedDrops = dropped
        }
        if let tap, let onPCM { tap.read(onPCM) }
        while let packet = worker.packets.pop(preSkip: worker.lookahead) {
            onPacket?(packet)
            if packet.isLast && !hasFinished {
                hasFinished = true
                onFinished?()
            }
        }
    }
}

/// Why the audio engine could not start or take a stream.
public enum AudioEngineError: Error, Equatable, Sendable, CustomStringConvertible {
    case configuration(AudioConfigurationError)
    case loop(LoopError)
    case thread(String)
    case tooManyStreams(Int)

    public var description: String {
        switch self {
        case .configuration(let error): error.description
        case .loop(let error): error.description
        case .thread(let reason): "cannot start the audio thread: \(reason)"
        case .tooManyStreams(let limit): "all \(limit) mixer streams are in use"
        }
    }
}
