import DeckBase
import DeckPlugins

/// Reloads a plugin whose bundle changed (`watchPlugins`, `deckd --watch`): every half second
/// each watched bundle's manifest and library are compared with what was last acted on, and one
/// that changed and then held still for a check (a build finished writing it) is reloaded by the
/// supervisor. A bundle the reload refused stays watched and is loaded once it changes again; one
/// whose host crashed as it changed (a library copied over in place) is revived, playing again.
/// One taken away (a clean build removes it first) is waited for, its plugin running on as loaded.
/// Loop-thread-confined.
final class BundleWatcher {
    static let intervalMilliseconds: UInt64 = 500
    private let registry: PluginRegistry
    private let supervisor: PluginSupervisor
    private let timer: any SchedulerTimer
    private let logger: Logger
    /// Per bundle path: its library's name and the fingerprint last loaded (or refused).
    private var watched: [String: (library: String, fingerprint: BundleFingerprint)] = [:]
    /// A changed fingerprint seen at the last check, per bundle: acted on when seen again.
    private var settling: [String: BundleFingerprint] = [:]
    /// Bundles taken away, said once each until they are back.
    private var away: Set<String> = []

    init(registry: PluginRegistry, supervisor: PluginSupervisor, scheduler: any Scheduler, logger: Logger) throws(LoopError) {
        self.registry = registry
        self.supervisor = supervisor
        self.logger = logger
        timer = try scheduler.makeTimer()
    }

    func start() {
        timer.start(after: BundleWatcher.intervalMilliseconds, repeat: BundleWatcher.intervalMilliseconds) { [unowned self] in check() }
    }

    func close() { timer.close() }

    private func check() {
        for plugin in registry where watched[plugin.bundlePath] == nil {
            watched[plugin.bundlePath] = (plugin.manifest.library, plugin.fingerprint)
        }
        var seen: [String: BundleFingerprint] = [:]
        for (bundle, known) in watched {
            let now = BundleFingerprint(bundle: bundle, library: known.library)
            guard now != known.fingerprint else { continue }
            if now.isTakenAway(since: known.fingerprint) {
                if away.insert(bundle).inserted, let plugin = registry.first(where: { $0.bundlePath == bundle }) {
                    logger.info("plugins", plugin: plugin.id, "\(plugin.id)'s bundle is taken away (\(now.changes(since: known.fingerprint) ?? "")): "
                                + "it runs on as loaded, and is loaded again once the bundle is back")
                }
                continue
            }
            away.remove(bundle)
            guard settling[bundle] == now else {
                seen[bundle] = now
                continue
            }
            let plugin: PluginInstance? = if let loaded = registry.first(where: { $0.bundlePath == bundle }) {
                loaded.hasCrashed ? supervisor.revive(bundle: bundle) : supervisor.reload(loaded.id)
            } else {
                supervisor.load(bundle: bundle)
            }
            watched[bundle] = (plugin?.manifest.library ?? known.library, plugin?.fingerprint ?? now)
        }
        settling = seen
    }
}
