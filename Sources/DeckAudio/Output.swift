import DeckBase
import DeckStream

/// The audio output: the engine (mixer, encoder, audio thread), the sinks it feeds, each owner's
/// stream in the mix, and the runs of the output from start to end. Loop-thread-confined.
public final class Output {
    public let engine: AudioEngine
    public let sinks = SinkSet()
    /// Runs once when a run ends by itself (`--duration` reached), not when the output ends it.
    public var onFinishedByItself: (() -> Void)?
    private let configuration: AudioConfiguration
    private let sinkContext: SinkContext
    private let files: FileOutputPolicy
    private let maxSinks: Int
    private let logger: Logger
    private let loop: EventLoop
    /// The mixer stream of each owner (a plugin id) that has one open.
    private var streams: [String: Int] = [:]
    /// Set while the output itself ends a run, so that end is not taken for `--duration`'s.
    private var ending = false
    private var isClosed = false
    private var dropReports = LogThrottle()
    private var droppedSinceReport = 0

    public init(configuration: AudioConfiguration, http: HTTPStreamSink.Limits, files: FileOutputPolicy, maxSinks: Int,
                loop: EventLoop, logger: Logger) throws(AudioEngineError) {
        engine = try AudioEngine(configuration: configuration, loop: loop)
        self.configuration = configuration
        self.files = files
        self.maxSinks = maxSinks
        self.logger = logger
        self.loop = loop
        var context = SinkContext(loop: loop, logger: logger, preSkip: engine.preSkip, frameSize: configuration.frameSize,
                                  encoder: configuration.encoder)
        context.http = http
        context.overwriteFiles = files.overwrite
        sinkContext = context
        engine.onPacket = { [unowned self] packet in sinks.deliver(packet) }
        engine.onDropped = { [unowned self] count in reportDropped(count) }
        engine.onFinished = { [unowned self] in
            logger.info("audio", "output run ended after \(engine.stats.frames.load(ordering: .relaxed)) frames in all")
            if ending {
                ending = false
            } else if !isClosed {
                onFinishedByItself?()
            }
        }
    }

    // MARK: Sinks

    /// Opens a sink. One a client adds (`fromClient`) may write files only inside `files.directory`.
    @discardableResult
    public func addSink(_ uri: String, fromClient: Bool = false) throws(SinkError) -> SinkInfo {
        guard sinks.list.count < maxSinks else { throw .tooMany(maxSinks) }
        var parsed = try SinkURI(uri)
        if fromClient, case .file(let path, let pipe) = parsed {
            parsed = .file(path: try files.confine(path, uri: uri), pipe: pipe)
        }
        let sink = try parsed.makeSink(sinkContext)
        let id = sinks.add(sink)
        logger.info("sinks", "sink \(id): \(sink.uri)")
        return SinkInfo(id: id, uri: sink.uri, status: sink.status)
    }

    public func removeSink(_ id: Int) throws(SinkError) {
        try sinks.remove(id)
        logger.info("sinks", "sink \(id) removed")
    }

    /// Opens every URI (a sink that cannot open is logged and the rest run); throws the reasons
    /// when there were some and none could open: the output would have nowhere to go.
    public func openSinks(_ uris: [String]) throws(OutputError) {
        var failures: [String] = []
        for uri in uris {
            do { try addSink(uri) } catch { failures.append(error.description) }
        }
        failures.forEach { logger.error("sinks", $0) }
        if !uris.isEmpty && failures.count == uris.count {
            throw .noSink(failures)
        }
    }

    // MARK: Runs

    /// Starts a run of the audio thread; real-time scheduling is tried when paced and reported.
    public func startRun() {
        do {
            try engine.start()
        } catch {
            logger.error("audio", "cannot start the output: \(error)")
            return
        }
        let mode = configuration.freewheel ? "freewheel" : (engine.requestRealtimePriority() ? "paced, real-time priority" : "paced")
        logger.info("audio", "output started: \(configuration.frameSize) frames, \(configuration.encoder.bitrate / 1000) kbit/s, \(mode)")
    }

    /// Ends the run in progress cleanly (the last packet carries EOS).
    public func endRun() {
        ending = engine.isRunning
        engine.stop()
    }

    // MARK: Streams

    /// Starts mixing `owner`'s stream at `gain`; opening an open stream does nothing.
    public func openStream(for owner: String, source: RenderSource, gain: Float, counters: StreamCounters) throws(AudioEngineError) {
        guard streams[owner] == nil else { return }
        streams[owner] = try engine.openStream(source, gain: gain, counters: counters)
        logger.debug("audio", "\(owner): stream opened")
    }

    /// Stops mixing `owner`'s stream; when this returns its render is not running and will not run
    /// again. False when it had none.
    @discardableResult
    public func closeStream(for owner: String) -> Bool {
        guard let stream = streams.removeValue(forKey: owner) else { return false }
        engine.closeStream(stream)
        logger.debug("audio", "\(owner): stream closed")
        return true
    }

    public func hasStream(_ owner: String) -> Bool { streams[owner] != nil }

    /// Ramps `owner`'s stream to `gain`, if it has one.
    public func rampGain(of owner: String, to gain: Float, milliseconds: Double, curve: GainRamp.Curve) {
        guard let stream = streams[owner] else { return }
        engine.rampGain(stream, to: gain, milliseconds: milliseconds, curve: curve)
    }

    // MARK: Shutdown

    /// Ends the run (EOS on every sink) and stops the thread; then, once streams are closed, `close()`.
    public func stop() {
        isClosed = true
        engine.stop()
    }

    /// Closes the sinks and releases the engine's loop handles.
    public func close() {
        isClosed = true
        sinks.closeAll()
        engine.close()
    }

    private func reportDropped(_ count: Int) {
        droppedSinceReport += count
        let (log, _) = dropReports.admit(now: loop.now)
        guard log else { return }
        logger.warning("audio", "\(droppedSinceReport) packet(s) dropped: the loop did not take them within "
                       + "\(configuration.packetBufferMilliseconds) ms (audio.packetBufferMs); listeners hear a gap")
        droppedSinceReport = 0
    }
}

/// Why the output cannot run.
public enum OutputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Sinks were configured and none could open, for these reasons.
    case noSink([String])

    public var description: String {
        switch self {
        case .noSink(let reasons): "no sink could open: \(reasons.joined(separator: "; "))"
        }
    }
}
