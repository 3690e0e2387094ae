import DeckBase
import DeckIsolation
import DeckPlugins

/// Carries out a plugin's end when it was not asked for — a crash of its host process, a render
/// that stopped returning, an overspent loop budget — and what follows a crash: a restart after
/// `restartDelayMs`, doubled for each earlier crash in the window, or, after `restartLimit` crashes
/// within `restartWindowS`, nothing until a client loads or launches it again. Loop-thread-confined.
final class PluginSupervisor {
    private let settings: IsolationSettings
    private let registry: PluginRegistry
    /// The zones: an app that was playing plays again in its own.
    private let zones: ZoneSet
    private let scheduler: any Scheduler
    private let logger: Logger
    /// Releases an ended plugin's stream, focus, now playing and screens.
    private let retire: (PluginInstance) -> Void
    /// Crash times (loop milliseconds) per plugin id, within the window.
    private var crashes: [String: [UInt64]] = [:]
    private var timers: [String: any SchedulerTimer] = [:]
    /// Crashed plugins that were playing: asked to play again once restarted.
    private var resumeAfterRestart: Set<String> = []
    /// Plugins given up on because their code stopped returning, in order.
    private(set) var abandoned: [String] = []
    /// Runs when the list of apps or their states changed.
    var onAppsChanged: (() -> Void)?
    /// Set while a `BundleWatcher` reloads changed bundles: a plugin whose host crashed on its
    /// bundle changing (a library copied over in place) waits for it, and plays again then.
    var bundlesWatched = false

    init(settings: IsolationSettings, registry: PluginRegistry, zones: ZoneSet, scheduler: any Scheduler, logger: Logger,
         retire: @escaping (PluginInstance) -> Void) {
        self.settings = settings
        self.registry = registry
        self.zones = zones
        self.scheduler = scheduler
        self.logger = logger
        self.retire = retire
    }

    // MARK: Ends

    /// An isolated plugin's process ended by itself or was ended: the plugin is marked crashed,
    /// retired (others resume or unduck), and restarted unless it crashed too often.
    func ended(instance: Int, story: String) {
        guard let plugin = registry.plugin(instance: instance), !plugin.hasCrashed, plugin.state != .destroyed else { return }
        let delay = crashed(plugin.id)
        if delay == nil {
            resumeAfterRestart.remove(plugin.id)
        } else if zones.isStreaming(plugin.id) {
            resumeAfterRestart.insert(plugin.id)
        }
        plugin.markCrashed(disabled: delay == nil)
        retire(plugin)
        if let delay {
            logger.error("plugins", plugin: plugin.id, event: .pluginCrashed, "\(plugin.id) crashed: \(story); restarting it in \(delay) ms")
        } else {
            logger.error("plugins", plugin: plugin.id, event: .pluginDisabled, "\(plugin.id) crashed: \(story); it crashed \(settings.restartLimit) times within "
                         + "\(settings.restartWindowSeconds) s and stays disabled until apps.load or apps.launch")
        }
        onAppsChanged?()
    }

    /// A plugin's render stopped returning (its stream is already out of the mix): it is never
    /// called again, its focus goes, and its library stays loaded.
    func hung(_ id: String) {
        guard let plugin = registry.plugin(id: id) else { return }
        plugin.markHung()
        abandoned.append(id)
        retire(plugin)
        logger.error("plugins", plugin: id, event: .pluginHung, "\(id) is hung: it is never called again and its library stays loaded")
        onAppsChanged?()
    }

    /// A plugin that kept taking more than its share of the loop: a host process is ended (and
    /// restarted as after a crash); a plugin in this process is marked hung, as it cannot be ended.
    func overspent(_ plugin: PluginInstance, _ reason: String) {
        guard !plugin.terminate(because: reason) else { return }
        plugin.markHung()
        retire(plugin)
        logger.error("plugins", plugin: plugin.id, event: .pluginHung,
                     "\(plugin.id) \(reason); it runs in deckd's process, so it is marked hung: never called again")
        onAppsChanged?()
    }

    // MARK: Restarts

    /// Records a crash of `id`; the restart delay in ms, or nil when it stays disabled.
    private func crashed(_ id: String) -> Int? {
        scheduler.updateTime()  // the crash may be noticed after a call that waited on the host
        let now = scheduler.now, window = UInt64(settings.restartWindowSeconds) * 1_000
        var times = (crashes[id] ?? []).filter { now < window || $0 > now - window }
        times.append(now)
        crashes[id] = times
        guard times.count < settings.restartLimit else { return nil }
        let delay = settings.restartDelayMilliseconds << (times.count - 1)
        let timer: any SchedulerTimer
        do { timer = try timers[id] ?? scheduler.makeTimer() } catch { return nil }
        timers[id] = timer
        timer.start(after: UInt64(delay)) { [unowned self] in
            timers.removeValue(forKey: id)?.close()
            restart(id)
        }
        return delay
    }

    /// Loads a crashed plugin again from its bundle and activates it; one that was playing is
    /// asked to play again (its last item and position when it owned now playing). A bundle whose
    /// files changed since it loaded is not restarted by itself (`onPurpose` false): the plugin
    /// stays disabled until a client loads or launches it, or the bundle watcher reloads it,
    /// naming what changed.
    private func restart(_ id: String, onPurpose: Bool = false) {
        guard let dead = registry.plugin(id: id), dead.hasCrashed else { return }
        let bundle = dead.bundlePath
        if !onPurpose, let changes = BundleFingerprint(bundle: bundle, library: dead.manifest.library).changes(since: dead.fingerprint) {
            dead.markCrashed(disabled: true)
            if !bundlesWatched { resumeAfterRestart.remove(id) }
            logger.error("plugins", plugin: id, event: .pluginDisabled, "\(id) is not restarted: its bundle changed since it was loaded (\(changes)); "
                         + (bundlesWatched ? "it is loaded again once the bundle holds still (watching the bundles)"
                                           : "it stays disabled until apps.load or apps.launch loads it on purpose"))
            onAppsChanged?()
            return
        }
        registry.unload(dead)
        guard let plugin = registry.load(bundle) else {
            onAppsChanged?()
            return
        }
        try? plugin.activate()
        logger.info("plugins", plugin: id, "\(id) restarted")
        if resumeAfterRestart.remove(id) != nil { playAgain(id, after: "its restart") }
        onAppsChanged?()
    }

    /// Asks a plugin loaded again to play, in the zone it played in: its last item from where it
    /// was when it owned that zone's now playing, else its default item.
    private func playAgain(_ id: String, after what: String) {
        let (focus, player) = (zones.zone(ofPlugin: id).focus, zones.zone(ofPlugin: id).player)
        if player.lastSource?.pluginID == id {
            player.send(.play) { [logger] outcome in
                if case .done(.success, _) = outcome { return }
                logger.warning("plugins", plugin: id, "\(id) did not resume after \(what): \(outcome)")
            }
        } else {
            _ = try? focus.play(pluginID: id, item: nil)
        }
    }

    /// Loads and activates the bundle at `bundle` (a watched bundle fixed after a refused reload);
    /// nil when it is refused, logged with the reason.
    func load(bundle: String) -> PluginInstance? {
        defer { onAppsChanged?() }
        guard let plugin = registry.load(bundle, recordFailure: false) else {
            logger.error("plugins", "\(bundle) was not loaded: \(registry.lastLoadFailure?.reasonText ?? "refused")")
            return nil
        }
        try? plugin.activate()
        logger.info("plugins", plugin: plugin.id, "\(plugin.id) loaded from \(bundle)")
        return plugin
    }

    /// Loads `id` again from its bundle, on purpose (an author changed it): deactivated,
    /// destroyed, loaded, activated and, when it was playing, playing again from where it was.
    /// nil when it is not loaded, or its bundle is now refused (`registry.lastLoadFailure` says why).
    func reload(_ id: String) -> PluginInstance? {
        guard let old = registry.plugin(id: id) else { return nil }
        let bundle = old.bundlePath, playing = zones.isStreaming(id)
        forgive(id)
        registry.unload(old)
        defer { onAppsChanged?() }
        guard let plugin = registry.load(bundle, recordFailure: false) else {
            logger.error("plugins", plugin: id, "\(id) was not reloaded: \(registry.lastLoadFailure?.reasonText ?? "refused")")
            return nil
        }
        try? plugin.activate()
        logger.info("plugins", plugin: id, "\(id) reloaded from \(bundle)")
        if playing { playAgain(id, after: "its reload") }
        return plugin
    }

    /// A crashed or disabled plugin a client asks for by id or bundle (however its path is
    /// written: `Tone.deckplugin/`, a link) comes back now, its crash count forgiven; nil when no
    /// such plugin crashed.
    func revive(id: String? = nil, bundle: String? = nil) -> PluginInstance? {
        let real = bundle.flatMap(AbsolutePath.real)
        guard let dead = registry.first(where: { plugin in
            plugin.hasCrashed && (plugin.id == id || plugin.bundlePath == bundle || (real != nil && AbsolutePath.real(plugin.bundlePath) == real))
        }) else { return nil }
        let id = dead.id
        forgive(id)
        restart(id, onPurpose: true)
        return registry.plugin(id: id)
    }

    /// Forgets `id`'s crashes and any restart due (a client loaded, launched or unloaded it).
    func forgive(_ id: String) {
        crashes[id] = nil
        timers.removeValue(forKey: id)?.close()
    }

    func close() {
        timers.values.forEach { $0.close() }
        timers = [:]
    }
}
