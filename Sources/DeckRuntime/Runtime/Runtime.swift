import DeckAudio
import DeckBase
import DeckControl
import DeckIsolation
import DeckPlugins
import DeckSession
import DeckStream
import DeckUI

/// The composition root: builds each subsystem in order, each given what it needs, and connects
/// their callbacks. It holds no state of its own and makes no decisions. Loop-thread-confined.
public final class Runtime {
    public let loop: EventLoop
    /// The time the coordinators, the supervisor, the notices and the state file decide by: the
    /// loop's, or a `VirtualScheduler` a test moves.
    public let scheduler: any Scheduler
    public let logger: Logger
    public let configuration: RuntimeConfiguration
    /// The audio engine, the sinks and each plugin's stream.
    public let output: Output
    /// The audio zones, each with its session and now playing, and the zone each app plays in.
    public let zones: ZoneSet
    /// The primary zone's audio session and what carries its decisions out.
    public let focus: FocusCoordinator
    /// The primary zone's now playing, queue and remote commands.
    public let player: PlayerCoordinator
    /// The display: every app's templates and content tree, and the limits they are held to.
    public let interface: InterfaceCoordinator
    /// Loaded plugins, in load order; destroyed in reverse.
    public let plugins: PluginRegistry
    /// Crashes, hangs and restarts of plugins.
    let supervisor: PluginSupervisor
    /// Reloads changed bundles (`watchPlugins`).
    private var watcher: BundleWatcher?
    /// The notifications every client and embedding handle subscribes to.
    let publisher: EventPublisher
    /// The last source, the volumes and the sinks chosen, across restarts.
    package let state: StateKeeper
    /// This runtime's hold on `dataDirectory`, let go at shutdown.
    private let dataLock: StateLock?
    /// Starts isolated plugins' hosts; owns their cgroups and the zygote.
    package let codeLoader: IsolatingCodeLoader
    /// What marks a plugin's process for the sinks' listeners and receivers and the MPRIS player's
    /// callers (nil: none runs); deckd, which starts no other processes, widens it to every process
    /// descending from it.
    package var pluginProcesses: () -> PluginProcesses? = { nil }
    /// Now playing on the D-Bus session bus, with `mpris`: one player per zone, in zone order.
    public private(set) var mprisPlayers: [MPRISBridge] = []
    /// The primary zone's MPRIS player.
    public var mpris: MPRISBridge? { mprisPlayers.first }
    private var isShutDown = false

    public init(configuration: RuntimeConfiguration, logger: Logger, loop given: EventLoop? = nil,
                scheduler givenScheduler: (any Scheduler)? = nil) throws(RuntimeError) {
        if let conflict = configuration.mediaFolderConflict() { throw .mediaFolders(conflict) }
        self.configuration = configuration
        self.logger = logger
        let loop: EventLoop
        if let given {
            loop = given
        } else {
            do { loop = try EventLoop() } catch { throw .loop(error) }
        }
        self.loop = loop
        let scheduler = givenScheduler ?? loop
        self.scheduler = scheduler
        do {
            output = try Output(configuration: configuration.audio, http: configuration.httpLimits, files: configuration.files,
                                maxSinks: configuration.maxSinks, loop: loop, logger: logger)
        } catch {
            throw .audio(error)
        }
        let directory = PluginDirectory()
        let zoneSettings = configuration.effectiveZones
        // A config file is checked as it is read; a configuration built in code is checked here.
        guard zoneSettings.count <= ZoneSettings.maxZones, Set(zoneSettings.map(\.id)).count == zoneSettings.count else {
            throw .zones("\(zoneSettings.count) zones with \(Set(zoneSettings.map(\.id)).count) distinct ids; at most "
                         + "\(ZoneSettings.maxZones) zones, each id once")
        }
        output.configureZones(zoneSettings.map(\.id), sinkZones: Dictionary(zoneSettings.enumerated().flatMap { index, zone in
            zone.sinks.map { ($0, index) }
        }) { first, _ in first })
        let zones: ZoneSet, interface: InterfaceCoordinator
        do {
            var list: [Zone] = []
            for (index, settings) in zoneSettings.enumerated() {
                var policy = configuration.session
                if let groups = settings.volumeGroups { policy.volumeGroups = groups }
                let focus = try FocusCoordinator(policy: policy, pins: configuration.pins, output: output, plugins: directory, scheduler: scheduler,
                                                 logger: logger, frameMilliseconds: configuration.audio.frameSize.milliseconds, zone: index,
                                                 zoneID: settings.id)
                let player = try PlayerCoordinator(limits: configuration.nowPlaying, plugins: directory, scheduler: scheduler, logger: logger)
                list.append(Zone(settings: settings, focus: focus, player: player))
            }
            zones = ZoneSet(list, configured: !configuration.zones.isEmpty, plugins: directory, output: output, logger: logger)
            interface = try InterfaceCoordinator(profiles: configuration.zoneDisplays, settings: configuration.ui, plugins: directory,
                                                 scheduler: scheduler, logger: logger)
            interface.zoneOf = { [unowned zones] in zones.zone(ofPlugin: $0).index }
            interface.zoneIDs = zoneSettings.map(\.id)
        } catch {
            throw .loop(error)
        }
        (self.zones, self.interface) = (zones, interface)
        let (focus, player) = (zones.primary.focus, zones.primary.player)
        (self.focus, self.player) = (focus, player)
        let actions = HostActions(
            audioThread: output.engine.audioThread,
            openStream: { [unowned zones] in zones.zone(ofInstance: $0).focus.openStream(instance: $0) },
            closeStream: { [unowned zones] in zones.zone(ofInstance: $0).focus.closeStream(instance: $0) },
            requestFocus: { [unowned zones] in
                zones.zone(ofInstance: $0).focus.requestFocus(instance: $0, context: $1, type: $2, acceptsDelayed: $3, pausesOnDuck: $4)
            },
            abandonFocus: { [unowned zones] in zones.zone(ofInstance: $0).focus.abandonFocus(instance: $0) },
            nowPlaying: { [unowned zones] in zones.zone(ofInstance: $0).player.handle($1, instance: $0) },
            ui: { [unowned interface] in interface.handle($1, instance: $0) })
        codeLoader = IsolatingCodeLoader(policy: configuration.policy.isolation, settings: configuration.isolation,
                                         frames: configuration.audio.frameSize.samples, freewheel: configuration.audio.freewheel,
                                         renderTimeoutMilliseconds: configuration.audio.renderTimeoutMilliseconds, loop: loop,
                                         scheduler: scheduler)
        let stateFile: StateFile?
        do {
            plugins = try PluginRegistry(directories: configuration.pluginDirectories, policy: configuration.policy,
                                         allowInsecure: configuration.allowInsecurePlugins, loop: loop, logger: logger, directory: directory,
                                         actions: actions, codeLoader: codeLoader, budget: configuration.loopBudget,
                                         provisions: PluginProvisions(dataRoot: configuration.dataDirectory,
                                                                      mediaFolders: configuration.isolation.mediaFolders,
                                                                      settings: configuration.appSettings,
                                                                      freewheeling: configuration.audio.freewheel))
            publisher = try EventPublisher(registry: plugins, zones: zones, interface: interface, output: output,
                                           pins: configuration.pins, coalesceMilliseconds: configuration.nowPlaying.coalesceMilliseconds,
                                           scheduler: scheduler)
            stateFile = try configuration.state.path.map { path throws(StateFileError) in
                try StateFile(path: path, delayMilliseconds: configuration.state.saveDelayMilliseconds, scheduler: scheduler, logger: logger)
            }
            dataLock = try configuration.dataDirectory.flatMap { [stateFile] folder throws(StateFileError) in
                // By its real path: `apps/`, `./apps` or a link to it is one folder, with one lock.
                do throws(StateFileError) { return try StateLock(for: AbsolutePath.real(folder) ?? folder, keeping: .dataDirectory) } catch {
                    stateFile?.close()  // its timer is a loop handle, closed before it is freed
                    throw error
                }
            }
        } catch let error as LoopError {
            throw .loop(error)
        } catch let error as StateFileError {
            throw .state(error)
        } catch {
            preconditionFailure("\(error)")
        }
        state = StateKeeper(file: stateFile, zones: zones, output: output, scheduler: scheduler, logger: logger)
        /// The one place a plugin's end is carried out, whatever ended it (unload, crash, hang, an
        /// overspent loop budget): its stream leaves the mix and the session, its focus goes (others
        /// resume or unduck), its now playing and its screens are released.
        let retire: (PluginInstance) -> Void = { [unowned zones, unowned interface] plugin in
            for zone in zones.list {
                zone.focus.release(plugin)
                zone.player.release(plugin.id)
            }
            interface.release(plugin.id)
        }
        supervisor = PluginSupervisor(settings: configuration.isolation, registry: plugins, zones: zones, scheduler: scheduler,
                                      logger: logger, retire: retire)
        state.restore()  // before the callbacks: applying saved volumes is not a change to save or publish
        connect(retire: retire)
    }

    /// The callbacks between the subsystems.
    private func connect(retire: @escaping (PluginInstance) -> Void) {
        let (output, interface, publisher, state) = (output, interface, publisher, state)
        plugins.willUnload = { plugin in
            // A playing plugin is stopped before it is deactivated: it closes its stream and lets
            // go of its focus itself, as when the driver stops it.
            if output.hasStream(plugin.id) { plugin.stopPlayback() }
            retire(plugin)
        }
        plugins.didActivate = { [unowned interface] in interface.activated($0) }
        zones.onMove = { [unowned interface, unowned publisher] id, from in
            interface.moved(id, from: from.index)
            publisher.appsChanged()
        }
        output.onHung = { [unowned supervisor] in supervisor.hung($0) }
        plugins.onOverspent = { [unowned supervisor] in supervisor.overspent($0, $1) }
        codeLoader.onEnd = { [unowned supervisor] in supervisor.ended(instance: $0, story: $1) }
        let hostUIDs = configuration.isolation.hostUIDs
        // A host uid marks every process of a plugin; on the runtime's own uid, its hosts' processes and cgroups are looked for.
        pluginProcesses = { [weak plugins, weak codeLoader] in
            let hosts = hostUIDs == nil ? plugins?.compactMap(\.processID) ?? [] : []
            guard hostUIDs != nil || !hosts.isEmpty else { return nil }  // every plugin inline: they are the runtime
            return PluginProcesses(uids: hostUIDs, hosts: hosts, cgroups: codeLoader?.cgroupFolder)
        }
        let notToRecord = "; the car's audio is not a plugin's to record"
        output.listenerGate.refusal = { [weak self] local, remote in
            self?.pluginProcesses()?.owner(local: local, remote: remote).map { $0 + notToRecord }
        }
        output.listenerGate.receiverRefusal = { [weak self] socket, name in
            self?.pluginProcesses()?.owner(of: socket, named: name).map { $0 + notToRecord }
        }
        supervisor.onAppsChanged = { [unowned publisher] in publisher.appsChanged() }
        interface.onChange = { [unowned publisher] in publisher.interfaceChanged() }
        for zone in zones.list {
            zone.focus.onChange = { [unowned zone, unowned publisher] changes in
                zone.player.sessionChanged(zone.focus.session.arbiter, isHome: zone.focus.isHome)
                publisher.sessionChanged(zone, changes)
            }
            zone.focus.onVolumeChange = { [unowned zone, unowned publisher, unowned state] in
                publisher.volumeChanged(zone)
                state.save()
            }
            zone.player.onChange = { [unowned self, unowned zone, unowned publisher, unowned state] change in
                publisher.playerChanged(zone, change)
                if mprisPlayers.indices.contains(zone.index) { mprisPlayers[zone.index].changed() }
                state.save()
            }
        }
    }

    /// Runs once when the output has ended by itself (`--duration` reached), not on `shutdown()`.
    public var onOutputFinished: (() -> Void)? {
        get { output.onFinishedByItself }
        set { output.onFinishedByItself = newValue }
    }

    public var audio: AudioEngine { output.engine }
    public var sinks: SinkSet { output.sinks }
    public var session: AudioSession { _read { yield focus.session } }
    /// The notifications every client and embedding handle subscribes to.
    public var events: EventHub { publisher.hub }
    /// Plugins given up on because their code stopped returning, in order.
    public var abandonedPlugins: [String] { supervisor.abandoned }

    /// Starts the runtime, on the loop thread: loads and activates every bundle in the plugin
    /// folders, then starts the output (`startOutput`). Throws when no configured sink could open.
    public func start() throws(RuntimeError) {
        if let path = configuration.policyPath {
            logger.info("plugins", "entitlement policy from \(path)")
        } else {
            logger.info("plugins", "no entitlement policy given: every declared entitlement is granted")
        }
        plugins.loadFolders()
        warnOfUnknownPluginIDs()
        plugins.activateAll()
        if configuration.watchPlugins {
            do {
                watcher = try BundleWatcher(registry: plugins, supervisor: supervisor, scheduler: scheduler, logger: logger)
                watcher?.start()
                supervisor.bundlesWatched = true
                logger.info("plugins", "watching the bundles: one that changes is reloaded")
            } catch {
                logger.error("plugins", "cannot watch the bundles: \(error)")
            }
        }
        try startOutput()
    }

    /// Loads and activates the bundles that appeared (or were fixed) in the plugin folders since the
    /// last scan; loaded plugins are left alone. Returns how many were loaded.
    @discardableResult
    public func rescanPlugins() -> Int {
        let before = plugins.count
        plugins.loadFolders()
        plugins.activateAll()
        let added = plugins.count - before
        logger.info("plugins", "rescan: \(added) new plugin(s), \(plugins.loadFailures.count) refused")
        publisher.appsChanged()
        return added
    }

    /// Opens the configured sinks and arms the session: the output starts on the first focus
    /// grant, or now with `alwaysActive`. `start()` calls it; call it yourself only after loading
    /// bundles one by one instead of from the folders.
    public func startOutput() throws(RuntimeError) {
        do { try output.openSinks(configuration.sinks) } catch { throw .noOutput(error.description) }
        if let problem = configuration.files.directoryProblem {
            logger.warning("sinks", "\(problem): clients' file sinks (sinks.add) are refused until it is a folder")
        }
        let open = Set(output.sinks.list.map(\.name))
        for zone in zones.list {
            for name in zone.settings.sinks where !open.contains(name) {
                logger.warning("zones", "zone \(zone.id) names the sink \(name), which is not open: its audio has nowhere to go there "
                               + "until a sink of that name opens (sinks.add with name=)")
            }
            // The primary zone takes the sinks no zone names; another zone has only its own.
            if zone.index > 0, zone.settings.sinks.isEmpty {
                logger.warning("zones", "zone \(zone.id) names no sinks: its audio has nowhere to go until a client adds one there "
                               + "(sinks.add with zone)")
            }
        }
        if let pinned = Set(configuration.pins.values).first, !open.contains(pinned) {
            let contexts = configuration.pins.keys.map(\.rawValue).sorted().joined(separator: ", ")
            logger.warning("sinks", "pins: \(contexts) pinned to the sink \(pinned), which is not open: heard with app audio "
                           + "until a sink of that name opens (sinks.add with name=)")
        }
        for (zone, names) in state.sinkSelections.sorted(by: { $0.key < $1.key }) {
            output.select(names: names, zone: zone)
            logger.info("state", "app audio\(zones.list.count > 1 ? " of zone \(zones.list[zone].id)" : "") goes to "
                        + "\(names.joined(separator: ", ")), as chosen before")
        }
        for zone in zones.list { zone.focus.start() }
        if configuration.mpris { startMPRIS() }
        for zone in zones.list where configuration.state.resumeOnStart {
            guard let source = zone.player.lastSource else { continue }
            logger.info("state", "resumeOnStart: resuming \(source.pluginID)" + (zones.list.count > 1 ? " in zone \(zone.id)" : ""))
            zone.player.send(.play) { [logger] outcome in
                if case .done(.success, _) = outcome { return }
                logger.warning("state", "resumeOnStart: \(source.pluginID) did not resume: \(outcome)")
            }
        }
    }

    /// Whether a plugin's host may reach this machine's local services as the runtime's uid: hosts
    /// share that uid, and one may make Unix sockets (it holds `services`, or there is no sandbox).
    var pluginsReachLocalServices: Bool {
        guard configuration.isolation.hostUIDs == nil else { return false }
        return plugins.contains { $0.processID != nil && (!configuration.isolation.sandbox || $0.permissions.contains(.services)) }
    }

    /// Serves now playing on the session bus, one player per zone when zones are configured
    /// (`…deck.<zone>`); a bus that cannot be reached is logged, never fatal.
    private func startMPRIS() {
        do {
            for zone in zones.list {
                let (name, identity) = configuration.zones.isEmpty ? (MPRISBridge.busName, "Deck")
                    : ("\(MPRISBridge.busName).\(zone.id)", "Deck (\(zone.settings.name))")
                let player = zone.player
                let bridge = try MPRISBridge(center: player.center, name: name, identity: identity, loop: loop, logger: logger) { command, reply in
                    player.send(command) { outcome in
                        switch PlayerMethods.answer(outcome, command) {
                        case .success: reply(.success(()))
                        case .failure(let error): reply(.failure(.command(error.message)))
                        }
                    }
                }
                // A plugin granted `services` reaches the session bus as the runtime's uid: it is refused there too.
                bridge.peerRefusal = { [weak self] pid, uid in
                    self?.pluginProcesses()?.owner(of: pid, uid: uid).map { $0 + PluginProcesses.throughTheHost }
                }
                bridge.pluginsMayCall = { [weak self] in self?.pluginsReachLocalServices ?? false }
                mprisPlayers.append(bridge)
            }
        } catch {
            logger.error("mpris", "\(error); running without MPRIS")
            mprisPlayers.forEach { $0.close() }
            mprisPlayers = []
        }
    }

    /// Ends the output cleanly (EOS on every sink) and closes the sinks, destroys every plugin last
    /// loaded first, and releases the loop's handles.
    public func shutdown() { shutdown(budget: nil) }

    /// `shutdown()`, but a plugin's host that has not answered within `budget` ms from now is
    /// ended rather than waited for (`isolation.callTimeoutMs` each otherwise).
    public func shutdown(pluginsWithinMilliseconds budget: Int) { shutdown(budget: budget) }

    private func shutdown(budget: Int?) {
        guard !isShutDown else { return }
        isShutDown = true
        if let budget { codeLoader.answerWithin(milliseconds: budget) }
        state.save()
        output.stop()
        output.closeSinks()  // finished before the plugins' teardown, which may run out of time
        watcher?.close()
        supervisor.close()
        plugins.unloadAll()
        codeLoader.removeCgroups()
        output.close()
        for zone in zones.list {
            zone.focus.close()
            zone.player.close()
        }
        mprisPlayers.forEach { $0.close() }
        state.close()
        dataLock?.release()
        publisher.close()
        interface.close()
    }
}

/// Why the runtime could not start, or could not go on.
public enum RuntimeError: Error, Equatable, Sendable, CustomStringConvertible {
    case loop(LoopError)
    case audio(AudioEngineError)
    case noOutput(String)
    case state(StateFileError)
    /// The zones cannot be run as given.
    case zones(String)
    /// A media folder holds the runtime's own files.
    case mediaFolders(String)

    public var description: String {
        switch self {
        case .loop(let error): error.description
        case .state(let error): error.description
        case .audio(let error): error.description
        case .noOutput(let reason): "the output has nowhere to go: \(reason)"
        case .zones(let reason): "the audio zones cannot run: \(reason)"
        case .mediaFolders(let reason): reason
        }
    }
}
