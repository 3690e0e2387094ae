import DeckBase

/// Loading from the plugin folders, activating, unloading, and delivering `request_callback`s; the
/// bundles that were refused. What is loaded it keeps in its directory, which it also is (a
/// collection in load order). Loop-thread-confined.
public final class PluginRegistry: RandomAccessCollection {
    /// The loaded plugins, read by the coordinators.
    public let directory: PluginDirectory
    /// Every bundle in the plugin folders that did not load, with its reason.
    public private(set) var loadFailures: [PluginLoadError] = []
    /// Why the latest `load` failed, recorded or not.
    public private(set) var lastLoadFailure: PluginLoadError?
    /// Runs before a plugin is destroyed: its stream closes and its focus goes first.
    public var willUnload: ((PluginInstance) -> Void)?
    /// Runs after a plugin became active, however activated: it is shown the display.
    public var didActivate: ((PluginInstance) -> Void)?
    /// Every call into a plugin's code while it runs, for a watchdog on another thread.
    package let callWatch = LoopCallWatch()
    /// Each plugin's share of loop time.
    package let budget: LoopBudget
    /// Runs when a plugin overspent its budget `endAfterWindows` times in a row: the runtime ends it.
    package var onOverspent: ((PluginInstance, String) -> Void)?
    /// Callbacks waiting until their plugin is within its budget again, by instance number.
    private var deferredCallbacks: [Int] = []
    private let retryTimer: LoopTimer
    private var nextInstance = 1
    private let directories: [String]
    private let loader: PluginLoader
    private let logger: Logger
    private let doorbell: AsyncDoorbell
    private let callbacks: CallbackRequests

    package init(directories: [String], policy: EntitlementPolicy, allowInsecure: Bool, loop: EventLoop, logger: Logger,
                 directory: PluginDirectory = PluginDirectory(), actions: HostActions, codeLoader: any PluginCodeLoader = InProcessCodeLoader(),
                 budget: LoopBudget = LoopBudget(), provisions: PluginProvisions = PluginProvisions()) throws(LoopError) {
        var deliver: (() -> Void)?
        self.budget = budget
        self.directory = directory
        retryTimer = try LoopTimer(loop: loop)
        doorbell = try AsyncDoorbell(loop: loop) { deliver?() }
        callbacks = CallbackRequests(ringer: doorbell.ringer)
        loader = PluginLoader(policy: policy, allowInsecure: allowInsecure, logger: logger, loopThread: loop.thread,
                              callbacks: callbacks, actions: actions, codeLoader: codeLoader, provisions: provisions)
        self.directories = directories
        self.logger = logger
        deliver = { [unowned self] in deliverCallbacks(callbacks.drain()) }
    }

    /// Delivers requested callbacks; one whose plugin is over its loop budget waits for it.
    private func deliverCallbacks(_ numbers: [Int]) {
        let now = MonotonicClock.milliseconds
        for number in numbers {
            guard let plugin = directory.plugin(instance: number) else { continue }
            if withinBudget(plugin, now: now) {
                plugin.deliverCallback()
            } else if !deferredCallbacks.contains(number) {
                deferredCallbacks.append(number)
            }
        }
        guard !deferredCallbacks.isEmpty else { return }
        retryTimer.start(after: UInt64(Swift.max(10, budget.windowMilliseconds / 10))) { [unowned self] in
            let waiting = deferredCallbacks
            deferredCallbacks = []
            deliverCallbacks(waiting)
        }
    }

    /// Whether the plugin is within its share of loop time. Going over it is logged; going over it
    /// `endAfterWindows` times within as many windows ends the plugin (`onOverspent`).
    private func withinBudget(_ plugin: PluginInstance, now: Int) -> Bool {
        let spent = plugin.loopTime.spent(at: now)
        guard spent > budget.allowanceMicroseconds else {
            plugin.isOverspent = false
            return true
        }
        guard !plugin.isOverspent else { return false }
        plugin.isOverspent = true
        let horizon = now - budget.windowMilliseconds * budget.endAfterWindows
        plugin.overspends = plugin.overspends.filter { $0 > horizon } + [now]
        let share = "\(spent / 1_000) ms of the last \(budget.windowMilliseconds) ms on the loop thread "
            + "(over its \(budget.sharePercent)% share, loopBudget)"
        if plugin.overspends.count >= budget.endAfterWindows {
            plugin.overspends = []
            onOverspent?(plugin, "took \(share) \(budget.endAfterWindows) times within \(budget.windowMilliseconds * budget.endAfterWindows) ms")
        } else {
            logger.warning("plugins", plugin: plugin.id, "\(plugin.id) took \(share); the callbacks it asks for wait until it is within it")
        }
        return false
    }

    public var startIndex: Int { directory.startIndex }
    public var endIndex: Int { directory.endIndex }
    public subscript(position: Int) -> PluginInstance { directory[position] }
    public var count: Int { directory.count }
    public func makeIterator() -> IndexingIterator<[PluginInstance]> { directory.makeIterator() }

    public func plugin(id: String) -> PluginInstance? { directory.plugin(id: id) }

    /// The plugin behind a host call's instance number; nil while it is still in `init`.
    package func plugin(instance: Int) -> PluginInstance? { directory.plugin(instance: instance) }

    /// Loads the bundles in the plugin folders that are not loaded yet (all of them at start; on a
    /// rescan, new or fixed ones). A folder that cannot be read is reported, not counted as refused.
    public func loadFolders() {
        for folder in directories {
            let bundles: [String]
            do {
                bundles = try PluginLoader.bundles(in: folder)
            } catch {
                logger.warning("plugins", "\(folder): \(error.reasonText)")
                continue
            }
            let fresh = bundles.filter { bundle in !directory.contains { $0.bundlePath == bundle } }
            loader.prepare(bundles: fresh) { id in self.plugin(id: id)?.bundlePath }
            for bundle in fresh { load(bundle) }
            loader.codeLoader.discardPrepared()
        }
    }

    /// Loads and initialises one bundle; returns the plugin, or nil after logging why not. A bundle
    /// that loads is no longer listed as refused; with `recordFailure` false (a client's
    /// `apps.load`, answered with the reason) a failure is logged but not kept.
    @discardableResult
    public func load(_ path: String, recordFailure: Bool = true) -> PluginInstance? {
        loadFailures.removeAll { $0.bundle == path }
        do {
            let plugin = try loader.load(bundle: path, instance: nextInstance) { id in self.plugin(id: id)?.bundlePath }
            directory.add(plugin, instance: nextInstance)
            nextInstance += 1
            plugin.didActivate = { [unowned self] in didActivate?($0) }
            plugin.callWatch = callWatch
            plugin.loopTime = LoopTimeLedger(windowMilliseconds: budget.windowMilliseconds)
            logger.info("plugins", plugin: plugin.id, "loaded \(plugin.id) \(plugin.manifest.version) from \(path) "
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
    public func activateAll() {
        for plugin in directory where plugin.state == .initialized {
            do {
                try plugin.activate()
            } catch {
                logger.error("plugins", error.message)
            }
        }
    }

    /// Lets the runtime release the plugin's stream and focus, deactivates and destroys it, and
    /// forgets it.
    public func unload(_ plugin: PluginInstance) {
        willUnload?(plugin)
        plugin.destroy()
        directory.remove(plugin)
        logger.info("plugins", plugin: plugin.id, "unloaded \(plugin.id)")
    }

    /// Unloads every plugin, last loaded first, and stops listening for callbacks.
    public func unloadAll() {
        for plugin in directory.reversed() { unload(plugin) }
        doorbell.close()
        retryTimer.close()
    }
}
