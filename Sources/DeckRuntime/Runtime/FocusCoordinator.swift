import DeckAudio
import DeckBase
import DeckPlugins
import DeckSession

/// Carries the audio session's decisions out: starts and ends runs of the output, tells plugins
/// their focus and the output's state, ramps their streams' gains, and watches the streams that
/// hold focus (starvation, bad samples). One per audio zone: plugins' focus and stream host calls
/// arrive at their zone's. Loop-thread-confined.
public final class FocusCoordinator {
    public private(set) var session: AudioSession
    /// The zone this session is for (its index in the output's mixes).
    public let zone: Int
    /// The zone's id, for logs.
    let zoneID: String
    /// Whether plugin `id` plays in this zone; only those are told this session's decisions. A
    /// plugin of another zone can hold focus here only as a shared request.
    var isHome: (String) -> Bool = { _ in true }
    /// The zones (one bit each) a stream of this context plays in, from this zone.
    var reach: (AudioContext) -> UInt8
    /// Runs when a granted request of a context shared with other zones is made here, or an
    /// owner lets go of focus here, so the other zones' sessions hear of it.
    var share: ((SharedFocus) -> Void)?
    /// Holders reported for playing only silence, and how many reports there were.
    public private(set) var starvationReports = 0
    let plugins: PluginDirectory
    /// Runs after every decision or stream change with what changed for whom (owner, change), in
    /// order; the runtime publishes when `session.get` changed or something happened.
    var onChange: (([(owner: String, change: String)]) -> Void)?
    private var changes: [(owner: String, change: String)] = []
    /// Runs after every change of the volume groups.
    var onVolumeChange: (() -> Void)?
    let output: Output
    private let scheduler: any Scheduler
    let logger: Logger
    private let frameMilliseconds: Double
    /// Contexts whose audio stays on a named sink (`pins`), whatever app audio does.
    private let pins: [AudioContext: String]
    private let sessionTimer: any SchedulerTimer
    private let watchdog: any SchedulerTimer
    /// Starts the run at the end of the loop turn that activated the session, so a plugin that is
    /// granted focus and opens its stream in one callback starts together with the output.
    private let activationTimer: any SchedulerTimer
    private var starving: Set<String> = []
    /// "ID invalid" / "ID clipped" once reported, so each is logged once per plugin.
    private var sampleReports: Set<String> = []

    init(policy: SessionPolicy, pins: [AudioContext: String], output: Output, plugins: PluginDirectory, scheduler: any Scheduler,
         logger: Logger, frameMilliseconds: Double, zone: Int = 0, zoneID: String = ZoneSettings.primary.id) throws(LoopError) {
        session = AudioSession(policy: policy)
        self.zone = zone
        self.zoneID = zoneID
        reach = { _ in 1 << zone }
        self.plugins = plugins
        self.pins = pins
        self.output = output
        self.scheduler = scheduler
        self.logger = logger
        self.frameMilliseconds = frameMilliseconds
        sessionTimer = try scheduler.makeTimer()
        watchdog = try scheduler.makeTimer()
        activationTimer = try scheduler.makeTimer()
    }

    /// Arms the session: the output starts on the first grant, or now with `alwaysActive`.
    func start() { apply(session.start(now: scheduler.now)) }

    func close() {
        sessionTimer.close()
        watchdog.close()
        activationTimer.close()
    }

    // MARK: Requests

    /// The integrator's own request (RPC `session.request`, the embedding API): any context, e.g. a
    /// chime the car plays on its own amplifier while Deck's streams duck.
    public func requestFocus(_ request: FocusRequest) -> FocusResult {
        let (result, effects) = session.request(request, now: scheduler.now)
        logger.info("session", "\(request.owner) asked for \(request.context.rawValue) (\(request.type.rawValue)): \(result)")
        let outcome = switch result {
        case .granted: "granted"
        case .delayed: "delayed"
        case .rejected: "rejected"
        }
        changes.append((request.owner.description, outcome))
        apply(effects)
        if case .granted = result, reach(request.context) != 1 << zone { share?(.request(request)) }
        return result
    }

    /// What another zone's session shares with this one: a request of a shared context, made
    /// here too (its audio is heard here), or the end of one.
    func mirror(_ shared: SharedFocus) {
        switch shared {
        case .request(let request):
            let (result, effects) = session.request(request, now: scheduler.now)
            logger.info("session", "\(request.owner) (shared from another zone) \(request.context.rawValue) in zone \(zoneID): \(result)")
            changes.append((request.owner.description, "shared"))
            apply(effects)
        case .abandon(let owner):
            guard session.arbiter.holdsOrAwaits(owner) else { return }
            changes.append((owner.description, "abandoned"))
            apply(session.abandon(owner, now: scheduler.now))
        }
    }

    /// An integrator's request (RPC `session.request`), refused before it reaches the session when
    /// `session.maxIntegratorOwners` other names already hold or await focus.
    public func requestIntegratorFocus(_ request: FocusRequest) throws(IntegratorFocusLimit) -> FocusResult {
        let arbiter = session.arbiter
        let integrators = Set((arbiter.holders.map(\.request) + [arbiter.pending].compactMap { $0 })
            .map(\.owner).filter { if case .integrator = $0 { true } else { false } })
        guard integrators.contains(request.owner) || integrators.count < session.policy.maxIntegratorOwners else {
            throw IntegratorFocusLimit(holding: integrators.count)
        }
        return requestFocus(request)
    }

    /// Gives up `owner`'s focus, held or awaited, here and in the zones it was shared with. One
    /// that holds none here (an app stopping that was not playing) changes nothing and says nothing.
    public func abandonFocus(_ owner: FocusOwner) {
        if session.arbiter.holdsOrAwaits(owner) {
            logger.info("session", "\(owner) abandoned focus")
            changes.append((owner.description, "abandoned"))
            apply(session.abandon(owner, now: scheduler.now))
        }
        share?(.abandon(owner))
    }

    /// Changes the volume groups and ramps the streams whose gain moved; `onVolumeChange` runs after.
    public func changeVolume(_ change: (inout VolumeGroups) throws(VolumeError) -> Void) throws(VolumeError) {
        apply(try session.changeVolume(now: scheduler.now, change))
        onVolumeChange?()
    }

    /// The volume group the volume keys act on: the group of the most important context playing
    /// (a call over navigation over media, as AAOS suggests), media when nothing plays.
    public var activeVolumeGroup: String {
        let order: [AudioContext] = [.call, .callRing, .emergency, .safety, .voiceCommand, .navigation, .alarm, .notification,
                                     .systemSound, .vehicleStatus, .announcement, .music]
        let playing = Set(session.arbiter.holders.filter { $0.state != .paused }.map(\.request.context))
        let context = order.first { playing.contains($0) } ?? .music
        return session.volume.group(for: context)?.name ?? "media"
    }

    /// Takes new session settings (validated by the caller) for what is decided from now on.
    public func reconfigure(_ policy: SessionPolicy) {
        session.reconfigure(policy)
        logger.info("session", "settings changed: duck \(policy.duckDecibels) dB, idle \(policy.idleTimeoutMilliseconds) ms, "
                    + "navigation during a call: \(policy.rejectsNavigationDuringCall ? "rejected" : "played")")
        apply([])
    }

    /// Closes the plugin's stream and gives up its focus (others recover at once): before unloading.
    func release(_ plugin: PluginInstance) {
        let owner = FocusOwner.plugin(plugin.id)
        output.closeStream(for: plugin.id)
        // Told even when the output dropped the stream already (a render that hung): otherwise
        // the session keeps it and never goes idle.
        if session.streams.contains(owner) { apply(session.streamClosed(owner, now: scheduler.now)) }
        if session.arbiter.holdsOrAwaits(owner) {
            apply(session.abandon(owner, now: scheduler.now))
            share?(.abandon(owner))
        }
    }

    // MARK: Apps moving between zones

    /// `owner`'s app moves to another zone: its stream and its focus leave this session (the
    /// others here recover) without its being told.
    func leave(_ owner: FocusOwner) {
        if session.streams.contains(owner) { apply(session.streamClosed(owner, now: scheduler.now)) }
        guard session.arbiter.holdsOrAwaits(owner) else { return }
        changes.append((owner.description, "moved away"))
        apply(session.abandon(owner, now: scheduler.now))
        share?(.abandon(owner))
    }

    /// `owner`'s open stream, of `context`, moved here from another zone: heard in this zone's
    /// mix and ramped to this session's gain for it.
    func adopt(_ owner: FocusOwner, context: AudioContext) {
        guard case .plugin(let id) = owner else { return }
        output.pin(id, to: pins[context])
        output.move(id, toZones: reach(context))
        apply(session.streamOpened(owner, now: scheduler.now))
        output.rampGain(of: id, to: session.targetGain(owner), milliseconds: session.policy.volumeRampMilliseconds, curve: .exponential)
        warnIfUnheard(id)
    }

    // MARK: Plugins' host calls (deck.session, deck.audio)

    func requestFocus(instance: Int, context: AudioContext, type: FocusRequestType, acceptsDelayed: Bool,
                      pausesOnDuck: Bool) -> Result<FocusResult, PluginCallError> {
        let plugin: PluginInstance
        switch active(instance, call: "request_focus") {
        case .success(let found): plugin = found
        case .failure(let problem): return .failure(problem)
        }
        guard AudioContext.allowed(for: plugin.entitlements).contains(context) else {
            let needed = context.entitlementsAllowing.map(\.rawValue)
            let need = needed.isEmpty ? "only the integrator may request it" : "that needs the \(needed.joined(separator: " or ")) entitlement"
            return .failure(PluginCallError(status: .notEntitled, message: "request_focus: \(plugin.id) may not request "
                                            + "\(context.rawValue): \(need) (it has: \(Entitlement.list(plugin.entitlements)))"))
        }
        let request = FocusRequest(owner: .plugin(plugin.id), context: context, type: type,
                                   acceptsDelayedFocus: acceptsDelayed, pausesOnDuck: pausesOnDuck)
        return .success(requestFocus(request))
    }

    func abandonFocus(instance: Int) -> PluginCallError? {
        guard let plugin = plugins.plugin(instance: instance) else { return nil }
        abandonFocus(.plugin(plugin.id))
        return nil
    }

    func openStream(instance: Int) -> PluginCallError? {
        let plugin: PluginInstance
        switch active(instance, call: "open_stream") {
        case .success(let found): plugin = found
        case .failure(let problem): return problem
        }
        guard let source = plugin.renderSource else {
            return PluginCallError(status: .unsupported, message: "open_stream: \(plugin.id) does not offer deck.audio")
        }
        let owner = FocusOwner.plugin(plugin.id)
        guard let holder = session.arbiter.holder(owner) else {
            return PluginCallError(status: .state, message: "open_stream: \(plugin.id) holds no audio focus; request it first")
        }
        guard !output.hasStream(plugin.id) else { return nil }
        do {
            try output.openStream(for: plugin.id, source: source, gain: session.targetGain(owner), counters: plugin.streamCounters,
                                  pin: pins[holder.request.context], zones: reach(holder.request.context))
        } catch {
            return PluginCallError(status: .limit, message: "open_stream: \(error)")
        }
        apply(session.streamOpened(owner, now: scheduler.now))
        warnIfUnheard(plugin.id)
        return nil
    }

    /// A stream in a zone of several whose sinks are all closed is heard by nobody: said once per stream.
    private func warnIfUnheard(_ id: String) {
        guard output.zoneCount > 1, output.sinks(inZone: zone).isEmpty else { return }
        logger.warning("audio", "\(id) plays in zone \(zoneID), which has no open sink: nobody hears it until one is added there "
                       + "(sinks.add with its zone)")
    }

    func closeStream(instance: Int) -> PluginCallError? {
        guard let plugin = plugins.plugin(instance: instance), output.hasStream(plugin.id) else { return nil }
        // A running output first mixes what a host rendered ahead (freewheel); a stopped one, or a stream
        // faded to silence (not pulled), takes nothing more.
        if output.engine.isRunning, output.isAudible(plugin.id) {
            plugin.closeStream { output.closeStream(for: plugin.id) }
        } else {
            output.closeStream(for: plugin.id)
        }
        apply(session.streamClosed(.plugin(plugin.id), now: scheduler.now))
        return nil
    }

    /// The active plugin behind a host call, or why it cannot make `call` now, naming its state.
    private func active(_ instance: Int, call: String) -> Result<PluginInstance, PluginCallError> {
        guard let plugin = plugins.plugin(instance: instance) else {
            return .failure(PluginCallError(status: .state, message: "\(call): the plugin is still loading (in init); call it once the plugin is active"))
        }
        guard plugin.state == .active else {
            return .failure(PluginCallError(status: .state, message: "\(call): \(plugin.id) is \(plugin.state.rawValue); call it once the plugin is active"))
        }
        return .success(plugin)
    }

    // MARK: Effects

    /// Carries out what the session decided: start or end a run, tell holders, move gains.
    func apply(_ effects: [AudioSession.Effect]) {
        for effect in effects {
            switch effect {
            case .activate:
                changes.append(("output", "activated"))
                activationTimer.start(after: 0) { [unowned self] in output.startRun(zone: zone) }
                logger.info("session", "output activated" + (output.zoneCount > 1 ? " for zone \(zoneID)" : ""))
                plugins.forEach { if isHome($0.id) { $0.notifySession(active: true) } }
                watchdog.start(after: 1_000, repeat: 1_000) { [unowned self] in
                    checkStarvation()
                    reportBadSamples()
                }
            case .deactivate:
                changes.append(("output", "deactivated"))
                activationTimer.stop()
                output.endRun(zone: zone)
                watchdog.stop()
                logger.info("session", "output deactivated" + (output.zoneCount > 1 ? " for zone \(zoneID)" : "")
                            + " after \(session.policy.idleTimeoutMilliseconds) ms idle")
                plugins.forEach { if isHome($0.id) { $0.notifySession(active: false) } }
            case .notify(let owner, let change):
                logger.info("session", "\(owner): \(change)")
                changes.append((owner.description, FocusCoordinator.name(change)))
                if case .plugin(let id) = owner, isHome(id) { plugins.plugin(id: id)?.notifyFocus(change) }
            case .gain(let owner, let gain, let ramp):
                guard case .plugin(let id) = owner, isHome(id) else { continue }
                output.rampGain(of: id, to: gain, milliseconds: ramp, curve: gain == 0 ? .sCurve : .exponential)
            }
        }
        // A holder whose context changed keeps or leaves its pinned sink, and the zones it is
        // heard in, with it.
        for holder in session.arbiter.holders where !pins.isEmpty || output.zoneCount > 1 {
            guard case .plugin(let id) = holder.request.owner, isHome(id) else { continue }
            output.pin(id, to: pins[holder.request.context])
            output.move(id, toZones: reach(holder.request.context))
        }
        let happened = changes
        changes = []
        onChange?(happened)
        if let deadline = session.deadline {
            sessionTimer.start(after: deadline > scheduler.now ? deadline - scheduler.now : 0) { [unowned self] in
                apply(session.tick(now: scheduler.now))
            }
        } else {
            sessionTimer.stop()
        }
    }

    /// How `session.changed` names a change of a holder's focus.
    private static func name(_ change: FocusChange) -> String {
        switch change {
        case .gain(let shouldResume): shouldResume ? "resumed" : "granted"
        case .unduck: "unducked"
        case .loss: "lost"
        case .lossTransient: "paused"
        case .duck: "ducked"
        }
    }

    /// Reports holders that play, unpaused, but have rendered only silence for the starvation time.
    func checkStarvation() {
        let limit = session.policy.starvationMilliseconds
        guard limit > 0 else { return }
        for plugin in plugins where isHome(plugin.id) {
            let owner = FocusOwner.plugin(plugin.id)
            guard output.hasStream(plugin.id), let holder = session.arbiter.holder(owner), holder.state != .paused else {
                starving.remove(plugin.id)
                continue
            }
            let silentMilliseconds = Double(plugin.streamCounters.silentRun.load(ordering: .relaxed)) * frameMilliseconds
            if silentMilliseconds < Double(limit) {
                starving.remove(plugin.id)
            } else if starving.insert(plugin.id).inserted {
                starvationReports += 1
                logger.warning("session", "\(plugin.id) holds \(holder.request.context.rawValue) focus but has played only silence "
                               + "for \(Int(silentMilliseconds / 1000)) s: it is starving the others")
            }
        }
    }

    /// Names, once per plugin and kind, a plugin whose stream was silenced for NaN/infinity or that
    /// wrote beyond full scale; the counts stay in `apps.list` and `runtime.info`.
    func reportBadSamples() {
        for plugin in plugins where isHome(plugin.id) {
            let counters = plugin.streamCounters
            if counters.invalidFrames.load(ordering: .relaxed) > 0, sampleReports.insert("\(plugin.id) invalid").inserted {
                logger.warning("audio", "\(plugin.id) rendered NaN or infinite samples; those frames were silenced "
                               + "(counted in apps.list as invalidFrames)")
            }
            if counters.clippedFrames.load(ordering: .relaxed) > 0, sampleReports.insert("\(plugin.id) clipped").inserted {
                logger.warning("audio", "\(plugin.id) rendered samples beyond full scale (±1.0); the mix limits them "
                               + "(counted in apps.list as clippedFrames)")
            }
        }
    }
}

/// A focus change one zone's session shares with the others.
enum SharedFocus {
    /// A granted request of a context the zone shares: made in the other zones too.
    case request(FocusRequest)
    /// The owner let go of focus (or its plugin ended): it lets go in the other zones too.
    case abandon(FocusOwner)
}

/// Too many integrator names hold or await focus to let another ask.
public struct IntegratorFocusLimit: Error, CustomStringConvertible {
    public let holding: Int

    public var description: String {
        "\(holding) integrator names hold or await focus (session.maxIntegratorOwners); abandon one first"
    }
}
