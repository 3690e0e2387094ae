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
    public let audio: AudioEngine
    public let sinks = SinkSet()
    /// Runs once when the output has ended by itself (`--duration` reached), not on `shutdown()`.
    public var onOutputFinished: (() -> Void)?
    private var callbackDoorbell: AsyncDoorbell?
    private var callbackRequests: CallbackRequests!
    private var audioActions: AudioHostActions!
    private var instanceNumbers: [Int: PluginInstance] = [:]
    private var nextInstance = 1
    private var isShutDown = false

    public init(configuration: RuntimeConfiguration, logger: Logger, loop: EventLoop? = nil) throws(RuntimeError) {
        self.configuration = configuration
        self.logger = logger
        if let loop {
            self.loop = loop
        } else {
            do { self.loop = try EventLoop() } catch { throw .loop(error) }
        }
        do { audio = try AudioEngine(configuration: configuration.audio, loop: self.loop) } catch { throw .audio(error) }
        let doorbell: AsyncDoorbell
        do { doorbell = try AsyncDoorbell(loop: self.loop) { [unowned self] in deliverCallbacks() } } catch { throw .loop(error) }
        callbackDoorbell = doorbell
        callbackRequests = CallbackRequests(ringer: doorbell.ringer)
        audioActions = AudioHostActions(audioThread: audio.audioThread,
                                        open: { [unowned self] in openStream(instance: $0) },
                                        close: { [unowned self] in closeStream(instance: $0) })
        audio.onPacket = { [unowned self] packet in sinks.deliver(packet) }
        audio.onFinished = { [unowned self] in
            logger.info("audio", "output finished after \(audio.stats.frames.load(ordering: .relaxed)) frames")
            if !isShutDown { onOutputFinished?() }
        }
    }

    private var loader: PluginLoader {
        PluginLoader(policy: configuration.policy, allowInsecure: configuration.allowInsecurePlugins, logger: logger,
                     loopThread: loop.thread, callbacks: callbackRequests, audio: audioActions)
    }

    // MARK: Plugins

    /// Loads every bundle in the configured directories; failures are logged and kept, never fatal.
    public func loadPlugins() {
        if let path = configuration.policyPath {
            logger.info("plugins", "entitlement policy from \(path)")
        } else {
            logger.info("plugins", "no entitlement policy given: every declared entitlement is granted")
        }
        for directory in configuration.pluginDirectories {
            do {
                for bundle in try PluginLoader.bundles(in: directory) { loadBundle(bundle) }
            } catch {
                record(error)
            }
        }
    }

    /// Loads and initialises one bundle; returns the plugin, or nil after logging why not.
    @discardableResult
    public func loadBundle(_ path: String) -> PluginInstance? {
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
            record(error)
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

    /// Closes the plugin's stream, deactivates and destroys it, and forgets it.
    public func unload(_ plugin: PluginInstance) {
        if let slot = plugin.streamSlot {
            audio.closeStream(slot)
            plugin.streamSlot = nil
        }
        plugin.destroy()
        plugins.removeAll { $0 === plugin }
        instanceNumbers = instanceNumbers.filter { $0.value !== plugin }
        logger.info("plugins", "unloaded \(plugin.id)")
    }

    // MARK: Playback and output

    /// Starts the audio thread and opens the configured sinks; a sink that cannot open is logged
    /// and the rest run.
    public func startOutput() throws(RuntimeError) {
        for uri in configuration.sinks {
            do { try addSink(uri) } catch { logger.error("sinks", error.description) }
        }
        do { try audio.start() } catch { throw .audio(error) }
        let mode = configuration.audio.freewheel ? "freewheel" : (audio.requestRealtimePriority() ? "paced, real-time priority" : "paced")
        logger.info("audio", "output started: \(configuration.audio.frameSize) frames, \(configuration.audio.encoder.bitrate / 1000) kbit/s, \(mode)")
    }

    /// Asks plugin `id` to play `item`: the path a remote "play" and `deckd --play` take.
    public func play(pluginID id: String, item: String?) throws(PluginCallError) {
        guard let plugin = plugin(id: id) else { throw PluginCallError(status: .invalid, message: "no plugin with id \(id)") }
        try plugin.startPlayback(item: item)
        logger.info("audio", "\(id): playing \(item ?? "its default item")")
    }

    @discardableResult
    public func addSink(_ uri: String) throws(SinkError) -> SinkInfo {
        var context = SinkContext(loop: loop, logger: logger, preSkip: audio.preSkip,
                                  frameSize: configuration.audio.frameSize, encoder: configuration.audio.encoder)
        context.http = configuration.httpLimits
        let sink = try SinkURI(uri).makeSink(context)
        let id = sinks.add(sink)
        logger.info("sinks", "sink \(id): \(sink.uri)")
        return SinkInfo(id: id, uri: sink.uri, status: sink.status)
    }

    public func removeSink(_ id: Int) throws(SinkError) {
        try sinks.remove(id)
        logger.info("sinks", "sink \(id) removed")
    }

    private func openStream(instance: Int) -> PluginCallError? {
        guard let plugin = instanceNumbers[instance] else { return PluginCallError(status: .state, message: "open_stream: unknown plugin") }
        guard plugin.entitlements.contains(.audio) else {
            return PluginCallError(status: .notEntitled, message: "open_stream: \(plugin.id) lacks the audio entitlement")
        }
        guard plugin.state == .active else {
            return PluginCallError(status: .state, message: "open_stream: \(plugin.id) is \(plugin.state.rawValue), expected active")
        }
        guard let source = plugin.renderSource else {
            return PluginCallError(status: .unsupported, message: "open_stream: \(plugin.id) does not offer deck.audio")
        }
        guard plugin.streamSlot == nil else { return nil }
        do {
            plugin.streamSlot = try audio.openStream(source, counters: plugin.streamCounters)
        } catch {
            return PluginCallError(status: .limit, message: "open_stream: \(error)")
        }
        logger.debug("audio", "\(plugin.id): stream opened")
        return nil
    }

    private func closeStream(instance: Int) -> PluginCallError? {
        guard let plugin = instanceNumbers[instance], let slot = plugin.streamSlot else { return nil }
        audio.closeStream(slot)
        plugin.streamSlot = nil
        logger.debug("audio", "\(plugin.id): stream closed")
        return nil
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
        callbackDoorbell?.close()
        callbackDoorbell = nil
    }

    private func record(_ error: PluginLoadError) {
        loadFailures.append(error)
        logger.error("plugins", error.description)
    }

    private func deliverCallbacks() {
        for number in callbackRequests.drain() { instanceNumbers[number]?.deliverCallback() }
    }
}

/// Why the runtime could not start.
public enum RuntimeError: Error, Equatable, Sendable, CustomStringConvertible {
    case loop(LoopError)
    case audio(AudioEngineError)

    public var description: String {
        switch self {
        case .loop(let error): error.description
        case .audio(let error): error.description
        }
    }
}
