import DeckAudio
import DeckBase
import DeckControl
import DeckIsolation
import DeckPlugins
import DeckSession
import DeckStream
import DeckUI

/// The composition root: creates the loop, the output, the focus coordinator, the plugin registry
/// and the event hub, and connects their ports. Everything else lives in its subsystem.
/// Loop-thread-confined.
public final class Runtime {
    public let loop: EventLoop
    public let logger: Logger
    public let configuration: RuntimeConfiguration
    /// The audio engine, the sinks and each plugin's stream.
    public let output: Output
    /// The audio session and what carries its decisions out.
    public let focus: FocusCoordinator
    /// Now playing, the queue and remote commands.
    public let player: PlayerCoordinator
    /// The display: every app's templates and content tree, and the limits they are held to.
    public let interface: InterfaceCoordinator
    /// Loaded plugins, in load order; destroyed in reverse.
    public let plugins: PluginRegistry
    /// The notifications every client and embedding handle subscribes to.
    public let events = EventHub(topics: Runtime.eventTopics)
    /// Where the last source and the volumes are kept; nil without `state.path`.
    public let stateFile: StateFile?
    /// Now playing on the D-Bus session bus, with `mpris`.
    public private(set) var mpris: MPRISBridge?
    private var isShutDown = false
    /// Plugins given up on because their code stopped returning, in order.
    public private(set) var abandonedPlugins: [String] = []
    /// The sinks app audio went to when the state was saved, chosen again once the sinks open.
    var savedSinkSelection: [String]?
    /// What the last `session.changed` said, so every change of `session.get` is published once.
    private var publishedSession: JSONValue?
    /// `nowPlaying.changed` and `queue.changed`, at most one each per `nowPlaying.coalesceMs`.
    private let nowPlayingNotices: NotificationCoalescer
    private let queueNotices: NotificationCoalescer
    private let uiNotices: NotificationCoalescer
    /// Restarts plugins whose host process ended.
    let supervisor: PluginSupervisor
    /// Starts isolated plugins' hosts; owns their cgroups and the zygote.
    package let codeLoader: IsolatingCodeLoader
    /// Crashed plugins that were playing: asked to play again once restarted.
    var resumeAfterRestart: Set<String> = []

    public init(configuration: RuntimeConfiguration, logger: Logger, loop given: EventLoop? = nil) throws(RuntimeError) {
        self.configuration = configuration
        self.logger = logger
        let loop: EventLoop
        if let given {
            loop = given
        } else {
            do { loop = try EventLoop() } catch { throw .loop(error) }
        }
        self.loop = loop
        do {
            output = try Output(configuration: configuration.audio, http: configuration.httpLimits, files: configuration.files,
                                maxSinks: configuration.maxSinks, loop: loop, logger: logger)
        } catch {
            throw .audio(error)
        }
        let focus: FocusCoordinator
        do {
            focus = try FocusCoordinator(policy: configuration.session, pins: configuration.pins, output: output, loop: loop, logger: logger,
                                         frameMilliseconds: configuration.audio.frameSize.milliseconds)
        } catch {
            throw .loop(error)
        }
        self.focus = focus
        let player: PlayerCoordinator
        do {
            player = try PlayerCoordinator(limits: configuration.nowPlaying, loop: loop, logger: logger)
            nowPlayingNotices = try NotificationCoalescer(loop: loop, windowMilliseconds: configuration.nowPlaying.coalesceMilliseconds)
            queueNotices = try NotificationCoalescer(loop: loop, windowMilliseconds: configuration.nowPlaying.coalesceMilliseconds)
            uiNotices = try NotificationCoalescer(loop: loop, windowMilliseconds: Runtime.uiCoalesceMilliseconds)
            interface = try InterfaceCoordinator(profile: configuration.display, settings: configuration.ui, loop: loop, logger: logger)
        } catch {
            throw .loop(error)
        }
        self.player = player
        let interface = interface
        do {
            stateFile = try configuration.state.path.map { path throws(StateFileError) in
                try StateFile(path: path, delayMilliseconds: configuration.state.saveDelayMilliseconds, loop: loop, logger: logger)
            }
        } catch {
            throw .state(error)
        }
        let actions = HostActions(
            audioThread: output.engine.audioThread,
            openStream: { [unowned focus] in focus.openStream(instance: $0) },
            closeStream: { [unowned focus] in focus.closeStream(instance: $0) },
            requestFocus: { [unowned focus] in
                focus.requestFocus(instance: $0, context: $1, type: $2, acceptsDelayed: $3, pausesOnDuck: $4)
            },
            abandonFocus: { [unowned focus] in focus.abandonFocus(instance: $0) },
            nowPlaying: { [unowned player] in player.handle($1, instance: $0) },
            ui: { [unowned interface] in interface.handle($1, instance: $0) })
        codeLoader = IsolatingCodeLoader(policy: configuration.policy.isolation, settings: configuration.isolation,
                                             frames: configuration.audio.frameSize.samples, freewheel: configuration.audio.freewheel, loop: loop)
        supervisor = PluginSupervisor(settings: configuration.isolation, loop: loop)
        do {
            plugins = try PluginRegistry(directories: configuration.pluginDirectories, policy: configuration.policy,
                                         allowInsecure: configuration.allowInsecurePlugins, loop: loop, logger: logger, actions: actions,
                                         codeLoader: codeLoader, budget: configuration.loopBudget, dataRoot: configuration.dataDirectory)
        } catch {
            throw .loop(error)
        }
        focus.plugins = plugins
        player.plugins = plugins
        interface.plugins = plugins
        plugins.willUnload = { [unowned self] plugin in
            // A playing plugin is stopped before it is deactivated: it closes its stream and lets
            // go of its focus itself, as when the driver stops it.
            if output.hasStream(plugin.id) { plugin.stopPlayback() }
            retire(plugin)
        }
        plugins.didActivate = { [unowned interface] in interface.activated($0) }
        output.onHung = { [unowned self] id in pluginHung(id) }
        plugins.onOverspent = { [unowned self] plugin, reason in pluginOverspent(plugin, reason) }
        codeLoader.onEnd = { [unowned self] instance, story in pluginEnded(instance: instance, story: story) }
        supervisor.restart = { [unowned self] id in restart(id) }
        uiNotices.send = { [unowned self] in publish("ui.changed", UIMethods.state(self)) }
        interface.onChange = { [unowned self] in uiNotices.changed() }
        focus.onChange = { [unowned self] changes in
            player.sessionChanged(session.arbiter)
            publishSession(changes)
        }
        if let saved = stateFile?.load() { restoreState(saved) }
        focus.onVolumeChange = { [unowned self] in
            publish("volume.changed", VolumeMethods.state(self))
            saveState()
        }
        nowPlayingNotices.send = { [unowned self] in publish("nowPlaying.changed", player.center.nowPlayingJSON(now: loop.now)) }
        queueNotices.send = { [unowned self] in publish("queue.changed", player.center.queueJSON) }
        player.onChange = { [unowned self] change in
            if change.contains(.info) {
                nowPlayingNotices.changed()
                if interface.showsNowPlaying { uiNotices.changed() }
            }
            if change.contains(.queue) { queueNotices.changed() }
            mpris?.changed()
            saveState()
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

    /// Loads every bundle in the configured folders; failures are logged and kept, never fatal.
    public func loadPlugins() {
        if let path = configuration.policyPath {
            logger.info("plugins", "entitlement policy from \(path)")
        } else {
            logger.info("plugins", "no entitlement policy given: every declared entitlement is granted")
        }
        plugins.loadFolders()
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
        publish("apps.changed", AppsMethods.list(self))
        return added
    }

    /// Opens the configured sinks and arms the session: the output starts on the first focus
    /// grant, or now with `alwaysActive`. Throws when no configured sink could open.
    public func startOutput() throws(RuntimeError) {
        do { try output.openSinks(configuration.sinks) } catch { throw .noOutput(error.description) }
        if let names = savedSinkSelection {
            output.select(names: names)
            logger.info("state", "app audio goes to \(names.joined(separator: ", ")), as chosen before")
        }
        focus.start()
        if configuration.mpris { startMPRIS() }
        if configuration.state.resumeOnStart, let source = player.lastSource {
            logger.info("state", "resumeOnStart: resuming \(source.pluginID)")
            player.send(.play) { [logger] outcome in
                if case .done(.success, _) = outcome { return }
                logger.warning("state", "resumeOnStart: \(source.pluginID) did not resume: \(outcome)")
            }
        }
    }

    /// A plugin's render stopped returning (its stream is already out of the mix): it is never
    /// called again, its focus goes, and its library stays loaded.
    private func pluginHung(_ id: String) {
        guard let plugin = plugins.plugin(id: id) else { return }
        plugin.markHung()
        abandonedPlugins.append(id)
        retire(plugin)
        logger.error("plugins", plugin: id, event: .pluginHung, "\(id) is hung: it is never called again and its library stays loaded")
        publish("apps.changed", AppsMethods.list(self))
    }

    /// A plugin that kept taking more than its share of the loop: a host process is ended (and
    /// restarted as after a crash); a plugin in this process is marked hung, as it cannot be ended.
    private func pluginOverspent(_ plugin: PluginInstance, _ reason: String) {
        guard !plugin.terminate(because: reason) else { return }
        plugin.markHung()
        retire(plugin)
        logger.error("plugins", plugin: plugin.id, event: .pluginHung, "\(plugin.id) \(reason); it runs in deckd's process, so it is marked hung: never called again")
        publish("apps.changed", AppsMethods.list(self))
    }

    /// The one place a plugin's end is carried out, whatever ended it (unload, crash, hang, an
    /// overspent loop budget): its stream leaves the mix and the session, its focus goes (others
    /// resume or unduck), its now playing and its screens are released.
    func retire(_ plugin: PluginInstance) {
        focus.release(plugin)
        player.release(plugin.id)
        interface.release(plugin.id)
    }

    /// Serves now playing on the session bus; a bus that cannot be reached is logged, never fatal.
    private func startMPRIS() {
        do {
            mpris = try MPRISBridge(center: player.center, loop: loop, logger: logger) { [unowned self] command, reply in
                player.send(command) { outcome in
                    switch PlayerMethods.answer(outcome, command) {
                    case .success: reply(.success(()))
                    case .failure(let error): reply(.failure(.command(error.message)))
                    }
                }
            }
        } catch {
            logger.error("mpris", "\(error); running without MPRIS")
        }
    }

    /// Publishes `session.changed`: the state as `session.get` has it, plus what changed for whom,
    /// whenever either is new.
    private func publishSession(_ changes: [(owner: String, change: String)]) {
        let state = SessionMethods.state(self)
        guard state != publishedSession || !changes.isEmpty, case .object(var payload) = state else { return }
        publishedSession = state
        payload["changes"] = .array(changes.map { ["owner": .string($0.owner), "change": .string($0.change)] })
        publish("session.changed", .object(payload))
    }

    /// Ends the output cleanly (EOS on every sink), destroys every plugin last loaded first, closes
    /// the sinks, and releases the loop's handles.
    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        saveState()
        output.stop()
        supervisor.close()
        plugins.unloadAll()
        codeLoader.removeCgroups()
        output.close()
        focus.close()
        player.close()
        mpris?.close()
        stateFile?.close()
        nowPlayingNotices.close()
        queueNotices.close()
        uiNotices.close()
        interface.close()
    }
}

/// Why the runtime could not start, or could not go on.
public enum RuntimeError: Error, Equatable, Sendable, CustomStringConvertible {
    case loop(LoopError)
    case audio(AudioEngineError)
    case noOutput(String)
    case state(StateFileError)

    public var description: String {
        switch self {
        case .loop(let error): error.description
        case .state(let error): error.description
        case .audio(let error): error.description
        case .noOutput(let reason): "the output has nowhere to go: \(reason)"
        }
    }
}
