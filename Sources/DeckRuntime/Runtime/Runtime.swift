/// The one object that wires Deck's subsystems together: the loop, the plugins and their
/// callbacks. It keeps the loop running until `shutdown()`. Loop-thread-confined.
public final class Runtime {
    public let loop: EventLoop
    public let logger: Logger
    public let configuration: RuntimeConfiguration
    /// Loaded plugins in load order; destroyed in reverse.
    public private(set) var plugins: [PluginInstance] = []
    /// Every bundle that did not load, with its reason.
    public private(set) var loadFailures: [PluginLoadError] = []
    private var callbackDoorbell: AsyncDoorbell!
    private var callbackRequests: CallbackRequests!
    private var instanceNumbers: [Int: PluginInstance] = [:]
    private var nextInstance = 1

    public init(configuration: RuntimeConfiguration, logger: Logger, loop: EventLoop? = nil) throws(LoopError) {
        self.configuration = configuration
        self.logger = logger
        if let loop { self.loop = loop } else { self.loop = try EventLoop() }
        let doorbell = try AsyncDoorbell(loop: self.loop) { [unowned self] in deliverCallbacks() }
        callbackDoorbell = doorbell
        callbackRequests = CallbackRequests(ringer: doorbell.ringer)
    }

    private var loader: PluginLoader {
        PluginLoader(policy: configuration.policy, allowInsecure: configuration.allowInsecurePlugins, logger: logger,
                     loopThread: loop.thread, callbacks: callbackRequests)
    }

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

    /// Deactivates and destroys `plugin`, and forgets it.
    public func unload(_ plugin: PluginInstance) {
        plugin.destroy()
        plugins.removeAll { $0 === plugin }
        instanceNumbers = instanceNumbers.filter { $0.value !== plugin }
        logger.info("plugins", "unloaded \(plugin.id)")
    }

    /// Deactivates and destroys every plugin, last loaded first, and releases the loop's handles.
    public func shutdown() {
        for plugin in plugins.reversed() { unload(plugin) }
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
