import DeckBase
import DeckMedia
import DeckStream
import Glibc
import Synchronization

/// The loop's handle on the audio thread: starts and ends its runs, replaces a thread stuck in a
/// render, and tells it what to do through its command ring (streams and gains in
/// `AudioEngine+Streams`, the ring in `AudioEngine+Commands`); what the thread produces comes back
/// through `delivery`. Each start begins a fresh run (a new encoder and a new stream for the
/// sinks); streams and their gains carry over. Loop-thread-confined.
public final class AudioEngine {
    public let configuration: AudioConfiguration
    /// The thread's side: its mixer, encoder and rings; replaced for each run.
    var worker: AudioRenderLoop
    private var doorbell: AsyncDoorbell?
    let watchdog: AudioWatchdog
    /// Runs on the loop when a render hung: the stream's index (already dropped from the mix).
    public var onHungStream: ((Int) -> Void)?
    var thread: pthread_t?
    private var joined = false
    /// Commands sent to the current worker, to wait until it applied one.
    var sentCommands = 0
    /// Open streams, by mixer index, as the loop last set them: carried over into each new run.
    var streams: [Int: (source: RenderSource, counters: StreamCounters, gain: Float, buses: UInt8)] = [:]
    /// The buses encoded and the routing generation their packets carry; kept across runs.
    var activeBuses: UInt8 = 1
    var generation = 0
    public let stats = AudioStats()
    public let audioThread = ThreadIdentity()
    /// Packets, the PCM tap and dropped-packet reports, on the loop.
    public let delivery = PacketDelivery()
    /// Takes the packets of one sink's mix on the audio thread as they are encoded.
    public let packetTap = PacketTap()
    /// The bus whose packets go to `packetTap` (-1: none); kept across runs.
    var tapBus = -1
    /// Runs on the loop when the packet tap's function has not returned for the render timeout.
    public var onStuckPacketTap: (() -> Void)?
    /// Runs on the loop when the audio thread took its real-time scheduling back: how many times so far.
    public var onRealtimeRetaken: ((Int) -> Void)?
    private var realtimeRetakenReported = 0
    /// Whether the audio thread was given real-time scheduling: a thread that replaces it gets it too.
    private var isRealtime = false
    /// How long packets may wait to be handed to the loop together, in ms, as the sinks allow
    /// (`Sink.batchMilliseconds`): paced, the loop then wakes once per batch, not once per frame.
    public var batchMilliseconds = 0 {
        didSet { worker.batchFrames.store(batchFrames, ordering: .relaxed) }
    }

    public init(configuration: AudioConfiguration, loop: EventLoop) throws(AudioEngineError) {
        self.configuration = configuration
        var drain: (() -> Void)?
        let doorbell: AsyncDoorbell
        do { doorbell = try AsyncDoorbell(loop: loop) { drain?() } } catch { throw .loop(error) }
        do { watchdog = try AudioWatchdog(loop: loop) } catch {
            doorbell.close()
            throw .loop(error)
        }
        do {
            worker = try AudioRenderLoop(configuration: configuration, doorbell: doorbell.ringer, deadline: watchdog.deadline, stats: stats,
                                         identity: audioThread, packetTap: packetTap)
        } catch {
            doorbell.close()
            watchdog.close()
            throw .configuration(error)
        }
        self.doorbell = doorbell
        drain = { [unowned self] in drainPackets() }
    }

    deinit {
        doorbell?.close()
        watchdog.close()
    }

    /// Stops the thread if it runs and releases the doorbell, so the loop can end.
    public func close() {
        stop()
        doorbell?.close()
        doorbell = nil
        watchdog.close()
    }

    public var isRunning: Bool { thread != nil && !delivery.hasFinished }
    /// The encoder's delay in samples: the Ogg pre-skip.
    public var preSkip: Int { worker.lookahead }

    /// Starts a run of the audio thread: a fresh encoder, its packets a new stream for the sinks.
    public func start() throws(AudioEngineError) {
        guard let doorbell else { return }
        if thread != nil {
            guard joined else { return }  // running
            do { worker = try makeWorker(doorbell) } catch { throw .configuration(error) }
            thread = nil
            joined = false
            delivery.beginRun()
            reopenStreams()
        }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        worker.batchFrames.store(batchFrames, ordering: .relaxed)
        worker.lastFrameBegan.store(MonotonicClock.nanoseconds, ordering: .relaxed)  // not stalled before its first frame
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
        if isRealtime { requestRealtimePriority() }
        armWatchdog()
    }

    /// A worker for a new run, or to carry a run on from `frame`, with the streams' routing and the taps.
    private func makeWorker(_ doorbell: AsyncDoorbell, resumingAt frame: Int64 = 0) throws(AudioConfigurationError) -> AudioRenderLoop {
        try AudioRenderLoop(configuration: configuration, doorbell: doorbell.ringer, deadline: watchdog.deadline, stats: stats,
                            identity: audioThread, activeBuses: activeBuses, generation: generation, tap: delivery.tap,
                            packetTap: packetTap, tapBus: tapBus, resumingAt: frame)
    }

    /// Frames the audio thread encodes before it wakes the loop: the sinks' batch, but each frame
    /// while the PCM tap is on (its reader wants the mix as it is made), and never more than a
    /// second, nor than an eighth of the packet ring (a frame of each bus may fill it four times
    /// faster), so a batch always fits.
    var batchFrames: Int {
        guard delivery.tap == nil else { return 1 }
        // A sink's value is any Int; bounded to 0...1000 here, the division stays in range.
        let milliseconds = max(0, min(batchMilliseconds, 1_000))
        let fitting = max(1, configuration.packetRingCapacity / (2 * Mixer.maxBuses))
        return min(fitting, max(1, Int(Double(milliseconds) / configuration.frameSize.milliseconds)))
    }

    // MARK: Watchdog

    private func armWatchdog() {
        watchdog.arm { [unowned self] in checkProgress() }
    }

    /// Whether the audio thread runs but has not begun a frame for longer than the render timeout.
    public var isStalled: Bool {
        threadRunning && MonotonicClock.nanoseconds - worker.lastFrameBegan.load(ordering: .relaxed) > configuration.renderTimeoutMilliseconds * 1_000_000
    }

    /// A render is hung once it has run for the render timeout, counted from its own start: the
    /// deadline the thread last pushed passed, and the render in progress, if it began after that
    /// push, is looked at again once it has run the whole timeout.
    private func checkProgress() {
        guard threadRunning else { return watchdog.stop() }
        let timeout = configuration.renderTimeoutMilliseconds * 1_000_000
        if let call = packetTap.currentCall {
            // The integrator's function holds the thread: it cannot be abandoned as a plugin's render is.
            guard call > timeout else { return watchdog.look(after: (timeout - call) / 1_000_000 + 1) }
            return onStuckPacketTap?() ?? ()
        }
        guard let render = worker.mixer.currentRender else { return }
        guard render.nanoseconds > timeout else { return watchdog.look(after: (timeout - render.nanoseconds) / 1_000_000 + 1) }
        replaceHungThread(dropping: render.stream)
        onHungStream?(render.stream)
    }

    /// The audio thread is stuck in `stream`'s render: it is abandoned (detached; it ends on its
    /// own if the render ever returns) and a fresh thread carries the output on from the same
    /// frame with every other stream, so sinks see no break in the stream, only the lost frames.
    private func replaceHungThread(dropping stream: Int) {
        guard let stuck = thread, let doorbell else { return }
        let old = worker
        old.abandoned.store(true, ordering: .releasing)
        drainPackets()
        streams[stream] = nil
        let resume = old.framesBegun.load(ordering: .relaxed) - 1
        do { worker = try makeWorker(doorbell, resumingAt: max(0, resume)) } catch {
            return  // the same settings built the first; nothing to carry on with
        }
        pthread_detach(stuck)
        thread = nil
        joined = false
        reopenStreams()
        try? start()
    }

    /// Opens every stream the loop holds in the new worker's mixer, before its thread runs.
    private func reopenStreams() {
        sentCommands = 0  // counted against the new worker's applied commands
        for (index, open) in streams.sorted(by: { $0.key < $1.key }) {
            worker.mixer.open(stream: index, source: open.source, gain: open.gain, counters: .passUnretained(open.counters), buses: open.buses)
        }
    }

    /// Copies the mix into a one-second ring from the next frame on; `onPCM` receives it.
    public func enablePCMTap() {
        guard delivery.tap == nil else { return }
        let tap = PCMTap()
        delivery.tap = tap
        send(.tap(Unmanaged.passUnretained(tap)))
        worker.batchFrames.store(batchFrames, ordering: .relaxed)
    }

    /// Frames of the PCM tap dropped because the loop fell a second behind.
    public var tapDroppedFrames: Int { delivery.tap?.droppedFrames.load(ordering: .relaxed) ?? 0 }

    /// The SCHED_FIFO priority of the output thread, and of isolated plugins' render threads.
    public static let realtimePriority = RenderSource.realtimePriority

    /// Moves the thread to real-time FIFO scheduling; false when the system refuses (no privilege).
    @discardableResult
    public func requestRealtimePriority() -> Bool {
        guard let thread else { return false }
        var parameters = sched_param(sched_priority: AudioEngine.realtimePriority)
        isRealtime = pthread_setschedparam(thread, SCHED_FIFO, &parameters) == 0
        worker.realtime.store(isRealtime, ordering: .relaxed)
        return isRealtime
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
        watchdog.stop()
        drainPackets()
    }

    func drainPackets() {
        delivery.drain(worker, stats: stats)
        let retaken = stats.realtimeRetaken.load(ordering: .relaxed)
        if retaken != realtimeRetakenReported {
            realtimeRetakenReported = retaken
            onRealtimeRetaken?(retaken)
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
