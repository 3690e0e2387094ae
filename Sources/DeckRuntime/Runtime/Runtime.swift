import DeckBase
import DeckStream
import DeckAudio
import DeckSession
import DeckPlugins
import DeckControl

/// The one object that wires Deck's subsystems together: the loop, the plugins and their
/// callbacks, the audio engine and the sinks. It keeps the loop running until `shutdown()`.
/// Loop-thread-confined.
public final class Runtime {
    public let loop: EventLoop
    public let logger: Logger
    public let configuration: RuntimeConfiguration
    /// Loaded plugins in load order; destroyed in reverse.
    public private(set) var plugins: [PluginInstance] = []
    /// Every bundle that did not load, with its reason.
    public private(set) var loadFailures: [PluginLoadError] = []
    /// Why the latest `loadBundle` failed, recorded or not.
    public private(set) var lastLoadFailure: PluginLoadError?
    public let audio: AudioEngine
    public let sinks = SinkSet()
    public let session: AudioSession
    /// Runs once when the output has ended by itself (`--duration` reached), not on `shutdown()`.
    public var onOutputFinished: (() -> Void)?
    /// The notifications every client and embedding handle subscribes to.
    public let events = EventHub(topics: Runtime.eventTopics)
    private var callbackDoorbell: AsyncDoorbell?
    private var callbackRequests: CallbackRequests!
    private var hostActions: HostActions!
    var instanceNumbers: [Int: PluginInstance] = [:]
    private var nextInstance = 1
    var isShutDown = false
    /// Set when the runtime itself ends a run of the output (idle, shutdown), so that end is not
    /// mistaken for the end of `--duration`.
    var endingOutput = false
    var sessionTimer: LoopTimer?
    var starvationWatchdog: LoopTimer?
    /// Starts the audio run at the end of the loop turn that activated the session, so a plugin that
    /// is granted focus and opens its stream in one callback starts together with the output.
    var activationTimer: LoopTimer?
    /// Dropped packets are logged once per burst, with how many since the last line.
    private var dropReports = LogThrottle()
    private var droppedSinceReport = 0
    /// "ID invalid" / "ID clipped" once reported, so each is logged once per plugin.
    var sampleReports: Set<String> = []
    /// Plugins reported as starving, until they make sound again.
    var starving: Set<String> = []
    public internal(set) var starvationReports = 0

    public init(configuration: RuntimeConfiguration, logger: Logger, loop: EventLoop? = nil) throws(RuntimeError) {
        self.configuration = configuration
        self.logger = logger
        if let loop {
            self.loop = loop
        } else {
            do { self.loop = try EventLoop() } catch { throw .loop(error) }
        }
        do { audio = try AudioEngine(configuration: configuration.audio, loop: self.loop) } catch { throw .audio(error) }
        session = AudioSession(policy: configuration.session)
        let doorbell: AsyncDoorbell
        do { doorbell = try AsyncDoorbell(loop: self.loop) { [unowned self] in deliverCallbacks() } } catch { throw .loop(error) }
        callbackDoorbell = doorbell
        callbackRequests = CallbackRequests(ringer: doorbell.ringer)
        hostActions = HostActions(
            audioThread: audio.audioThread,
            openStream: { [unowned self] in openStream(instance: $0) },
            closeStream: { [unowned self] in closeStream(instance: $0) },
            requestFocus: { [unowned self] in requestFocus(instance: $0, context: $1, type: $2, acceptsDelayed: $3, pausesOnDuck: $4) },
            abandonFocus: { [unowned self] in abandonFocus(instance: $0) })
        do {
            sessionTimer = try LoopTimer(loop: self.loop)
            starvationWatchdog = try LoopTimer(loop: self.loop)
            activationTimer = try LoopTimer(loop: self.loop)
        } catch {
            throw .loop(error)
        }
        audio.onPacket = { [unowned self] packet in sinks.deliver(packet) }
        audio.onDropped = { [unowned self] count in
            droppedSinceReport += count
            let (log, _) = dropReports.admit(now: self.loop.now)
            guard log else { return }
            logger.warning("audio", "\(droppedSinceReport) packet(s) dropped: the loop did not take them within "
                           + "\(configuration.audio.packetBufferMilliseconds) ms (audio.packetBufferMs); listeners hear a gap")
            droppedSinceReport = 0
        }
        audio.onFinished = { [unowned self] in
            logger.info("audio", "output run ended after \(audio.stats.frames.load(ordering: .relaxed)) frames in all")
            if endingOutput {
                endingOutput = false
            } else if !isShutDown {
                onOutputFinished?()
            }
        }
    }

    private var loader: PluginLoader {
        PluginLoader(policy: configuration.policy, allowInsecure: configuration.allowInsecurePlugins, logger: logger,
                     loopThread: loop.thread, callbacks: callbackRequests, actions: hostActions)
    }

    // MARK: Plugins

    /// Loads every bundle in the configured directories; failures are logged and kept, never fatal.
    public func loadPlugins() {
        if let path = configuration.policyPath {
            logger.info("plugins", "entitlement policy from \(path)")
        } else {
            logger.info("plugins", "no entitlement policy given: every declared entitlement is granted")
        }
        scanPluginDirectories()
    }

    /// Loads and activates the bundles that appeared (or were fixed) in the plugin folders since the
    /// last scan; loaded plugins are left alone. Returns how many were loaded.
    @discardableResult
    public func rescanPlugins() -> Int {
        let before = plugins.count
        scanPluginDirectories()
        activatePlugins()
        let added = plugins.count - before
        logger.info("plugins", "rescan: \(added) new plugin(s), \(loadFailures.count) refused")
        publish("apps.changed", AppsMethods.list(self))
        return added
    }

    private func scanPluginDirectories() {
        for directory in configuration.pluginDirectories {
            let bundles: [String]
            do {
                bundles = try PluginLoader.bundles(in: directory)
            } catch {
                // A folder is not a bundle: it is reported, not counted as refused.
                logger.warning("plugins", "\(directory): \(error.reasonText)")
                continue
            }
            for bundle in bundles where !plugins.contains(where: { $0.bundlePath == bundle }) { loadBundle(bundle) }
        }
    }

    /// Loads and initialises one bundle; returns the plugin, or nil after logging why not. A bundle
    /// that loads is no longer listed as refused; with `recordFailure` false (a client's
    /// `apps.load`, answered with the reason) a failure is logged but not kept.
    @discardableResult
    public func loadBundle(_ path: String, recordFailure: Bool = true) -> PluginInstance? {
        loadFailures.removeAll { $0.bundle == path }
        do {
            let plugin = try loader.load(bundle: path, instance: nextInstance) { id in
                plugins.first { $0.id == id }?.bundlePath
            }
            instanceNumbers[nextInstance] = plugin
            nextInstance += 1
            plugins.append(plugin)
            logger.info("plugins", "loaded \(plugin.id) \(plugin.manifest.version) from \(path) "
                + "(\(plugin.isSwift ? "Swift" : "C"); entitlements: \(Entitlement.list(plugin.entitlements)))")
            return plugin
        } catch {
            lastLoadFailure = error
            if recordFailure { loadFailures.append(error) }
            logger.error("plugins", error.description)
            return nil
        }
    }

    /// Activates every initialised plugin; one that refuses stays loaded but inactive.
    public func activatePlugins() {
        for plugin in plugins where plugin.state == .initialized {
            do {
                try plugin.activate()
            } catch {
                logger.error("plugins", error.message)
            }
        }
    }

    public func plugin(id: String) -> PluginInstance? { plugins.first { $0.id == id } }

    /// Closes the plugin's stream, gives up its focus (others recover at once), deactivates and
    /// destroys it, and forgets it.
    public func unload(_ plugin: PluginInstance) {
        _ = closeStream(instance: plugin.instance)
        if session.arbiter.holder(.plugin(plugin.id)) != nil || session.arbiter.pending?.owner == .plugin(plugin.id) {
            apply(session.abandon(.plugin(plugin.id), now: loop.now))
        }
        plugin.destroy()
        plugins.removeAll { $0 === plugin }
        instanceNumbers = instanceNumbers.filter { $0.value !== plugin }
        logger.info("plugins", "unloaded \(plugin.id)")
    }

    // MARK: Shutdown

    /// Ends the output cleanly (EOS on every sink), destroys every plugin last loaded first, closes
    /// the sinks, and releases the loop's handles.
    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        audio.stop()
        for plugin in plugins.reversed() { unload(plugin) }
        sinks.closeAll()
        audio.close()
        sessionTimer?.close()
        starvationWatchdog?.close()
        activationTimer?.close()
        callbackDoorbell?.close()
        callbackDoorbell = nil
    }

    private func deliverCallbacks() {
        for number in callbackRequests.drain() { instanceNumbers[number]?.deliverCallback() }
    }
}

/// Why the runtime could not start.
public enum RuntimeError: Error, Equatable, Sendable, CustomStringConvertible {
    case loop(LoopError)
    case audio(AudioEngineError)
    case noOutput(String)

    public var description: String {
        switch self {
        case .loop(let error): error.description
        case .audio(let error): error.description
        case .noOutput(let reason): "the output has nowhere to go: \(reason)"
        }
    }
}
