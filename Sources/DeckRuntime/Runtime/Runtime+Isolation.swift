import DeckBase
import DeckPlugins

extension Runtime {
    /// An isolated plugin's process ended by itself or was ended: the plugin is marked crashed,
    /// its stream fades out, its focus goes (others resume or unduck), its now playing and screens
    /// are released, and a restart follows unless it crashed too often.
    func pluginEnded(instance: Int, story: String) {
        guard let plugin = plugins.plugin(instance: instance), !plugin.hasCrashed, plugin.state != .destroyed else { return }
        let delay = supervisor.crashed(plugin.id)
        if delay == nil {
            resumeAfterRestart.remove(plugin.id)
        } else if output.hasStream(plugin.id) {
            resumeAfterRestart.insert(plugin.id)
        }
        plugin.markCrashed(disabled: delay == nil)
        retire(plugin)
        if let delay {
            logger.error("plugins", plugin: plugin.id, event: .pluginCrashed, "\(plugin.id) crashed: \(story); restarting it in \(delay) ms")
        } else {
            logger.error("plugins", plugin: plugin.id, event: .pluginDisabled, "\(plugin.id) crashed: \(story); it crashed \(configuration.isolation.restartLimit) times within "
                         + "\(configuration.isolation.restartWindowSeconds) s and stays disabled until apps.load or apps.launch")
        }
        publish("apps.changed", AppsMethods.list(self))
    }

    /// Loads a crashed plugin again from its bundle and activates it; one that was playing is
    /// asked to play again (its last item and position when it owned now playing). A bundle whose
    /// files changed since it loaded is not restarted by itself (`onPurpose` false): the plugin
    /// stays disabled until a client loads or launches it, naming what changed.
    func restart(_ id: String, onPurpose: Bool = false) {
        guard let dead = plugins.plugin(id: id), dead.hasCrashed else { return }
        let bundle = dead.bundlePath
        if !onPurpose, let changes = BundleFingerprint(bundle: bundle, library: dead.manifest.library).changes(since: dead.fingerprint) {
            dead.markCrashed(disabled: true)
            resumeAfterRestart.remove(id)
            logger.error("plugins", plugin: id, event: .pluginDisabled, "\(id) is not restarted: its bundle changed since it was loaded (\(changes)); "
                         + "it stays disabled until apps.load or apps.launch loads it on purpose")
            publish("apps.changed", AppsMethods.list(self))
            return
        }
        plugins.unload(dead)
        guard let plugin = plugins.load(bundle) else {
            publish("apps.changed", AppsMethods.list(self))
            return
        }
        try? plugin.activate()
        logger.info("plugins", plugin: id, "\(id) restarted")
        if resumeAfterRestart.remove(id) != nil {
            if player.lastSource?.pluginID == id {
                player.send(.play) { [logger] outcome in
                    if case .done(.success, _) = outcome { return }
                    logger.warning("plugins", plugin: id, "\(id) did not resume after its restart: \(outcome)")
                }
            } else {
                _ = try? play(pluginID: id, item: nil)
            }
        }
        publish("apps.changed", AppsMethods.list(self))
    }

    /// A crashed or disabled plugin a client asks for by id or bundle comes back now, its crash
    /// count forgiven; nil when no such plugin crashed.
    func revive(id: String? = nil, bundle: String? = nil) -> PluginInstance? {
        guard let dead = plugins.first(where: { $0.hasCrashed && ($0.id == id || $0.bundlePath == bundle) }) else { return nil }
        let id = dead.id
        supervisor.forgive(id)
        restart(id, onPurpose: true)
        return plugins.plugin(id: id)
    }
}
