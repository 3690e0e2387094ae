import DeckBase
import DeckMedia
import DeckStream

/// The audio output: the engine (mixer, encoders, audio thread), the sinks it feeds and which mix
/// each takes (the output picker's choice and pinned audio), each owner's stream in the mix, and
/// the runs of the output from start to end. Loop-thread-confined.
public final class Output {
    public let engine: AudioEngine
    public let sinks = SinkSet()
    /// Runs once when a run ends by itself (`--duration` reached), not when the output ends it.
    public var onFinishedByItself: (() -> Void)?
    /// Runs when an owner's render hung and its stream was dropped (the output goes on without it).
    public var onHung: ((String) -> Void)?
    private let configuration: AudioConfiguration
    private let sinkContext: SinkContext
    private let files: FileOutputPolicy
    private let maxSinks: Int
    private let logger: Logger
    private let loop: EventLoop
    /// The mixer stream of each owner (a plugin id) that has one open, the sink its audio is
    /// pinned to (nil: app audio, which goes to the selected sinks), and the zones whose app audio
    /// it is (one bit per zone).
    private var streams: [String: (stream: Int, pin: String?, zones: UInt8)] = [:]
    /// The names of the sinks each zone's app audio goes to; a zone not here uses all its sinks.
    public private(set) var selections: [Int: [String]] = [:]
    /// The ids of the audio zones the output mixes for (one mix per zone that has sinks), by index.
    public private(set) var zoneIDs = ["primary"]
    public var zoneCount: Int { zoneIDs.count }
    /// The zone of each sink named in the config's zones; any other sink is in zone 0.
    private var configuredSinkZones: [String: Int] = [:]
    /// The zone of each open sink, by id.
    private var sinkZones: [Int: Int] = [:]
    /// The zones whose sessions are active; a run lasts while one is.
    private var activeZones: Set<Int> = []
    private var plan = RoutePlan()
    /// The sink whose mix the engine's packet tap takes on the audio thread.
    private var packetTapSink: Int?
    private var generation = 0
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
        engine.delivery.onPacket = { [unowned self] packet in sinks.deliver(packet) }
        engine.delivery.onBatchEnd = { [unowned self] in sinks.endBatch() }
        engine.delivery.onDropped = { [unowned self] count in reportDropped(count) }
        engine.onHungStream = { [unowned self] stream in
            guard let owner = streams.first(where: { $0.value.stream == stream })?.key else { return }
            streams[owner] = nil
            logger.error("audio", "\(owner)'s render has not returned for \(configuration.renderTimeoutMilliseconds) ms "
                         + "(audio.renderTimeoutMs): its stream is dropped and the output goes on in a fresh audio thread")
            onHung?(owner)
        }
        engine.onRealtimeRetaken = { count in
            logger.warning("audio", "the audio thread's real-time scheduling had been taken by another process of this uid; "
                           + "taken back (\(count) time(s) so far)")
        }
        engine.onStuckPacketTap = {
            logger.error("audio", "the embedder's audio-thread packet callback has not returned for \(configuration.renderTimeoutMilliseconds) ms "
                         + "(audio.renderTimeoutMs): the output waits for it")
        }
        engine.delivery.onFinished = { [unowned self] in
            logger.info("audio", "output run ended after \(engine.stats.frames.load(ordering: .relaxed)) frames in all")
            if ending {
                ending = false
            } else if !isClosed {
                onFinishedByItself?()
            }
        }
    }

    /// The names of the sinks the primary zone's app audio goes to; nil is every sink.
    public var selection: [String]? { selections[0] }

    // MARK: Zones

    /// Mixes for the zones with these ids, the sinks named in `sinkZones` in theirs (the rest in
    /// zone 0). Set before any sink opens.
    public func configureZones(_ ids: [String], sinkZones: [String: Int]) {
        zoneIDs = ids
        configuredSinkZones = sinkZones
        reroute()
    }

    /// Which listeners on this machine the HTTP sinks turn away (the runtime sets it).
    public var listenerGate: ListenerGate { sinkContext.listeners }

    /// The zone sink `id` is in (0 when it is not open).
    public func zone(ofSink id: Int) -> Int { sinkZones[id] ?? 0 }

    /// The open sinks that play `zone`'s audio.
    public func sinks(inZone zone: Int) -> [SinkInfo] { sinks.list.filter { sinkZones[$0.id] == zone } }

    // MARK: Sinks

    /// Opens a sink; `name=` and `kind=` in the URI label it. One a client adds (`fromClient`)
    /// may write files (a recording, an RTP sink's SDP file) only inside `files.directory`, and
    /// listen for HTTP only on loopback unless `http.allowRemoteListeners`.
    @discardableResult
    public func addSink(_ text: String, fromClient: Bool = false, zone: Int? = nil) throws(SinkError) -> SinkInfo {
        guard sinks.count < maxSinks else { throw .tooMany(maxSinks) }
        var (parsed, label) = try SinkLabel.parse(text)
        if let name = label.name, let holder = sinks.list.first(where: { $0.name == name }) {
            throw .invalidURI(text, "the name \(name) is taken by sink \(holder.id)")
        }
        if fromClient {
            switch parsed {
            case .file(let path, let pipe): parsed = .file(path: try files.confine(path, uri: text), pipe: pipe)
            case .rtp(let host, let port, let payloadType, let sdp?):
                parsed = .rtp(host: host, port: port, payloadType: payloadType, sdpPath: try files.confineReplacing(sdp, uri: text))
            case .http(let host, _, _) where !sinkContext.http.allowRemoteListeners:
                guard (try? SocketAddress(host: host, port: 0))?.isLoopback ?? false else {
                    throw .cannotOpen(text, "clients may open HTTP sinks on loopback addresses only (127.0.0.1, ::1), not \(host), "
                                      + "which would serve the car's audio to the network; the integrator sets http.allowRemoteListeners")
                }
            default: break
            }
        }
        if let clash = parsed.clash(with: sinks.list) { throw .cannotOpen(text, clash) }
        return attach(try parsed.makeSink(sinkContext), label: SinkLabel(name: label.name, kind: label.kind ?? SinkKind(default: parsed)),
                      zone: zone)
    }

    /// Feeds `sink` from the next frame (embedders' own sinks, such as a callback), in `zone`
    /// (nil: the zone the config names for it, else zone 0).
    @discardableResult
    public func attach(_ sink: any Sink, label: SinkLabel = SinkLabel(), zone: Int? = nil) -> SinkInfo {
        let name = label.name ?? sink.uri
        let id = sinks.add(sink, name: name, kind: label.kind ?? .network)
        sinkZones[id] = zone ?? configuredSinkZones[name] ?? 0
        logger.info("sinks", "sink \(id): \(sink.uri)" + (label.name.map { " (\($0))" } ?? ""))
        reroute()
        return sinks.list.first { $0.id == id }!
    }

    /// Hands the packets of `sink`'s mix (nil: none) to `engine.packetTap` on the audio thread, as
    /// they are encoded, following the sink when the routing moves it to another mix.
    public func tapPackets(ofSink sink: Int?) {
        packetTapSink = sink
        reroute()
    }

    public func removeSink(_ id: Int) throws(SinkError) {
        try sinks.remove(id)
        sinkZones[id] = nil
        logger.info("sinks", "sink \(id) removed")
        reroute()
    }

    /// Sends `zone`'s app audio to these of its sinks only (nil: to every sink of the zone, the
    /// default); audio pinned to a sink stays there. Each sink that changes mix fades out and in.
    public func select(_ ids: [Int]?, zone: Int = 0) throws(SinkError) {
        guard zoneIDs.indices.contains(zone) else { throw .noSuchZone(zone) }
        let open = sinks.list
        if let missing = ids?.first(where: { id in !open.contains { $0.id == id } }) { throw .noSuchSink(missing) }
        if let stranger = ids?.first(where: { sinkZones[$0] != zone }) { throw .otherZone(stranger) }
        select(names: ids.map { ids in open.filter { ids.contains($0.id) }.map(\.name) }, zone: zone)
        logger.info("sinks", "app audio\(zoneCount > 1 ? " of zone \(zoneIDs[zone])" : "") goes to "
                    + (ids.map { "sink(s) \($0.map(String.init).joined(separator: ", "))" } ?? (zoneCount > 1 ? "every sink of the zone" : "every sink")))
    }

    /// Sends `zone`'s app audio to the sinks with these names (a saved choice); names not open are
    /// ignored, and when none is open the zone's app audio goes to every sink of the zone.
    public func select(names: [String]?, zone: Int = 0) {
        guard zoneIDs.indices.contains(zone) else { return }
        selections[zone] = names
        reroute()
    }

    /// Whether app audio (of the sink's zone) goes to the sink now.
    public func carriesAppAudio(_ sink: Int) -> Bool {
        plan.sinkBuses[sink].flatMap { plan.buses[$0] }.map { $0 & (1 << zone(ofSink: sink)) != 0 } ?? false
    }

    /// Opens every URI (a sink that cannot open is logged and the rest run); throws the reasons
    /// when there were some and none could open: the output would have nowhere to go.
    public func openSinks(_ uris: [String]) throws(OutputError) {
        var failures: [String] = []
        for uri in uris {
            do { try addSink(uri) } catch { failures.append(error.description) }
        }
        failures.forEach { logger.error("sinks", event: .sinkFailed, $0) }
        if !uris.isEmpty && failures.count == uris.count {
            throw .noSink(failures)
        }
    }

    // MARK: Runs

    /// Starts a run of the audio thread for `zone`'s session; real-time scheduling is tried when
    /// paced and reported. A run already going for another zone carries on.
    public func startRun(zone: Int = 0) {
        let idle = activeZones.isEmpty
        activeZones.insert(zone)
        guard idle else { return }
        do {
            try engine.start()
        } catch {
            logger.error("audio", "cannot start the output: \(error)")
            return
        }
        let mode = configuration.freewheel ? "freewheel" : (engine.requestRealtimePriority() ? "paced, real-time priority" : "paced")
        logger.info("audio", "output started: \(configuration.frameSize) frames, \(configuration.encoder.bitrate / 1000) kbit/s, \(mode)")
    }

    /// `zone`'s session went idle: ends the run in progress cleanly (the last packet carries EOS)
    /// when no other zone's is active.
    public func endRun(zone: Int = 0) {
        activeZones.remove(zone)
        guard activeZones.isEmpty else { return }
        ending = engine.isRunning
        engine.stop()
    }

    // MARK: Streams

    /// Starts mixing `owner`'s stream at `gain`, to the selected sinks of the zones in `zones`
    /// (one bit per zone) or to the sink named `pin`; opening an open stream does nothing.
    public func openStream(for owner: String, source: RenderSource, gain: Float, counters: StreamCounters,
                           pin: String? = nil, zones: UInt8 = 1) throws(AudioEngineError) {
        guard streams[owner] == nil else { return }
        let stream = try engine.openStream(source, gain: gain, counters: counters, buses: plan.streamBuses(pin: pin, zones: zones))
        streams[owner] = (stream, pin, zones)
        logger.debug("audio", "\(owner): stream opened" + (pin.map { ", pinned to \($0)" } ?? ""))
        if let pin, !plan.pins.contains(pin), sinks.list.contains(where: { $0.name == pin }) { reroute() }
    }

    /// Pins `owner`'s stream to the sink named `pin`, or (nil) sends it with app audio.
    public func pin(_ owner: String, to pin: String?) {
        guard let open = streams[owner], open.pin != pin else { return }
        streams[owner]?.pin = pin
        reroute()
    }

    /// Makes `owner`'s stream app audio of the zones in `zones` (one bit per zone).
    public func move(_ owner: String, toZones zones: UInt8) {
        guard let open = streams[owner], open.zones != zones else { return }
        streams[owner]?.zones = zones
        reroute()
    }

    /// Stops mixing `owner`'s stream; when this returns its render is not running and will not run
    /// again. False when it had none.
    @discardableResult
    public func closeStream(for owner: String) -> Bool {
        guard let stream = streams.removeValue(forKey: owner)?.stream else { return false }
        engine.closeStream(stream)
        logger.debug("audio", "\(owner): stream closed")
        return true
    }

    public func hasStream(_ owner: String) -> Bool { streams[owner] != nil }

    /// Whether `owner`'s stream is mixed at a gain above silence (or rising): one ducked or paused to
    /// zero is not pulled, so what its app rendered ahead would never be taken.
    public func isAudible(_ owner: String) -> Bool {
        guard let stream = streams[owner]?.stream else { return false }
        return engine.targetGain(of: stream) > 0
    }

    /// Ramps `owner`'s stream to `gain`, if it has one.
    public func rampGain(of owner: String, to gain: Float, milliseconds: Double, curve: GainRamp.Curve) {
        guard let stream = streams[owner]?.stream else { return }
        engine.rampGain(stream, to: gain, milliseconds: milliseconds, curve: curve)
    }

    // MARK: Shutdown

    /// Ends the run (EOS on every sink) and stops the thread; then, once streams are closed, `close()`.
    public func stop() {
        isClosed = true
        engine.stop()
    }

    /// Finishes and closes every sink (the last pages written, listeners let go).
    public func closeSinks() {
        sinks.closeAll()
    }

    /// Closes the sinks and releases the engine's loop handles.
    public func close() {
        isClosed = true
        sinks.closeAll()
        engine.close()
    }

    /// Makes the plan for the sinks, the choice and the pins in force, and hands it to the sinks
    /// (from the next generation of packets) and the audio thread. Streams heard on a sink whose
    /// mix changes fade out and in.
    private func reroute() {
        applySinkBatch()
        let open = sinks.list
        let next: RoutePlan
        do {
            next = try RoutePlan.make(sinks: open.map { ($0.id, $0.name, zone(ofSink: $0.id)) }, zones: zoneCount,
                                      selected: selections.mapValues(Set.init), pinnedTo: Set(streams.values.compactMap(\.pin)),
                                      previous: plan)
        } catch {
            return logger.error("sinks", "routing unchanged: \(error)")
        }
        // A sink whose bus or whose bus's mix changes hears a cut unless what it heard fades first.
        let cut = open.compactMap { sink -> Int? in
            guard let bus = plan.sinkBuses[sink.id], bus != next.sinkBuses[sink.id] || plan.buses[bus] != next.buses[bus] else { return nil }
            return bus
        }
        let fading = Set(streams.values.filter { open in
            cut.contains { plan.streamBuses(pin: open.pin, zones: open.zones) & (1 << $0) != 0 }
        }.map(\.stream))
        generation += 1
        sinks.route(next.sinkBuses, generation: generation, inFlight: engine.isRunning)
        engine.reroute(streams: Dictionary(uniqueKeysWithValues: streams.values.map { ($0.stream, next.streamBuses(pin: $0.pin, zones: $0.zones)) }),
                       activeBuses: next.activeBuses, generation: generation, tapBus: packetTapSink.flatMap { next.sinkBuses[$0] } ?? -1,
                       alsoFading: fading)
        plan = next
    }

    /// Hands the strictest sink's batch to the audio thread (after a sink's `batchMilliseconds` changed).
    public func applySinkBatch() {
        engine.batchMilliseconds = sinks.batchMilliseconds ?? .max  // without sinks, nothing waits for packets
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
