import DeckBase
import DeckPlugins
import DeckUI

/// The car's display as the runtime serves it: the display profile and the limits it gives each
/// app, every app's templates and content tree, the app in the foreground, and the selections and
/// loads waiting on a plugin's completion. Plugins' `deck.ui` and `deck.content` calls arrive
/// here; the HMI drives it through `ui.*` and `display.*`. Loop-thread-confined.
public final class InterfaceCoordinator {
    /// Something waiting on a plugin's completion token.
    enum Pending {
        case selection(app: String, item: UInt64)
        case load(app: String, path: String)
        case play(app: String, path: String)

        var app: String {
            switch self {
            case .selection(let app, _), .load(let app, _), .play(let app, _): app
            }
        }
    }

    public private(set) var profile: DisplayProfile
    /// Every app with a UI side, by plugin id.
    public private(set) var apps: [String: AppInterface] = [:]
    /// The app the HMI shows: the last launched, else the first with a UI.
    public private(set) var foreground: String?
    public let settings: InterfaceSettings
    let plugins: PluginDirectory
    /// Runs after anything `ui.get` shows changed.
    var onChange: (() -> Void)?
    var pending: [UInt64: (what: Pending, deadline: UInt64)] = [:]
    private var nextToken: UInt64 = 1
    private let timeoutTimer: any SchedulerTimer
    /// Loads the plugins completed, applied on the next loop turn: never inside the plugin's call.
    private var completedLoads: [(app: String, path: String, status: DeckStatus)] = []
    private let completionTimer: any SchedulerTimer
    let scheduler: any Scheduler
    let logger: Logger

    init(profile: DisplayProfile, settings: InterfaceSettings, plugins: PluginDirectory, scheduler: any Scheduler, logger: Logger) throws(LoopError) {
        self.profile = profile
        self.plugins = plugins
        self.settings = settings
        self.scheduler = scheduler
        self.logger = logger
        timeoutTimer = try scheduler.makeTimer()
        completionTimer = try scheduler.makeTimer()
    }

    func close() {
        timeoutTimer.close()
        completionTimer.close()
    }

    /// Whether the foreground app shows the now-playing template (its changes are UI changes).
    var showsNowPlaying: Bool {
        guard let id = foreground else { return false }
        return apps[id]?.stack.showsNowPlaying ?? false
    }

    public func limits(for app: AppInterface) -> DisplayLimits { DisplayLimits(profile: profile, entitlements: app.entitlements) }

    // MARK: Plugins coming and going

    /// A plugin became active: one with a UI side is shown the display, and must set its root
    /// while it is told (or it gets a placeholder).
    func activated(_ plugin: PluginInstance) {
        guard plugin.offersUI || plugin.offersContent else { return }
        let app = apps[plugin.id] ?? AppInterface(appID: plugin.id, entitlements: plugin.entitlements, maxImageBytes: settings.maxImageBytes)
        app.offersTemplates = plugin.offersUI
        app.offersContent = plugin.offersContent
        apps[plugin.id] = app
        if foreground == nil { foreground = plugin.id }
        if profile.attached { attach(plugin, app) }
        onChange?()
    }

    /// The plugin is going: its templates, tokens and images go with it.
    func release(_ pluginID: String) {
        guard apps.removeValue(forKey: pluginID) != nil else { return }
        pending = pending.filter { $0.value.what.app != pluginID }
        if foreground == pluginID { foreground = apps.keys.sorted().first }
        onChange?()
    }

    /// `apps.launch` from the HMI: the app comes to the foreground and starts a new task.
    public func launched(_ pluginID: String) {
        guard let app = apps[pluginID] else { return }
        foreground = pluginID
        app.startTask()
        onChange?()
    }

    private func attach(_ plugin: PluginInstance, _ app: AppInterface) {
        guard app.offersTemplates else { return }
        plugin.notifyDisplay(attached: true, profile: profile.json.encoded())
        if app.stack.root == nil {
            logger.warning("ui", "\(plugin.id) set no root template when the display attached; it shows a placeholder")
            app.setPlaceholder(title: plugin.manifest.name)
        }
    }

    // MARK: The display

    /// Takes a new profile (`display.set`): attaching or detaching tells every app with a UI;
    /// new limits are applied to what is shown and each app is told.
    public func setProfile(_ next: DisplayProfile) {
        let before = profile
        profile = next
        logger.info("ui", "display: \(next.width)×\(next.height) @\(next.scale)x, \(next.attached ? "attached" : "detached")"
                    + (next.driving ? ", driving (lists limited)" : ""))
        if before.attached != next.attached {
            for app in apps.values.sorted(by: { $0.appID < $1.appID }) {
                guard let plugin = plugins.plugin(id: app.appID) else { continue }
                if next.attached {
                    attach(plugin, app)
                } else {
                    app.clear()
                    pending = pending.filter { $0.value.what.app != app.appID }
                    plugin.notifyDisplay(attached: false, profile: next.json.encoded())
                }
            }
        } else if next.attached {
            for app in apps.values.sorted(by: { $0.appID < $1.appID }) {
                let (old, new) = (DisplayLimits(profile: before, entitlements: app.entitlements), limits(for: app))
                guard old != new else { continue }
                if new.contentItems != old.contentItems || new.contentDepth != old.contentDepth {
                    app.content.applyDepth(new.contentDepth)
                }
                plugins.plugin(id: app.appID)?.notifyLimits(new.json.encoded())
            }
        }
        onChange?()
    }

    // MARK: Tokens

    func takeToken(_ what: Pending) -> UInt64 {
        let token = nextToken
        nextToken += 1
        pending[token] = (what, scheduler.now + UInt64(settings.handlerTimeoutMilliseconds))
        armTimeout()
        return token
    }

    /// A completion from the plugin; false when the token is not its or no longer waits.
    func finish(_ token: UInt64, app: String) -> Pending? {
        guard let entry = pending[token], entry.what.app == app else { return nil }
        pending[token] = nil
        armTimeout()
        return entry.what
    }

    /// A plugin completed loading `path`: the level is read (or the failure kept) on the next loop turn.
    func loadCompleted(app: String, path: String, status: DeckStatus) {
        completedLoads.append((app, path, status))
        completionTimer.start(after: 0) { [unowned self] in applyCompletedLoads() }
    }

    private func applyCompletedLoads() {
        let done = completedLoads
        completedLoads = []
        for (appID, path, status) in done {
            guard let app = apps[appID] else { continue }
            app.content.loading.remove(path)
            if status != .ok {
                app.content.failures[path] = "\(appID) could not load it (\(status))"
                logger.warning("ui", "\(appID) could not load \"\(path)\": \(status)")
            } else if (plugins.plugin(id: appID)?.childCount(path: path) ?? -1) < 0 {
                app.content.failures[path] = "\(appID) completed loading but still counts no children"
                logger.warning("ui", "\(appID) completed loading \"\(path)\" but child_count still says it is loading")
            }
        }
        onChange?()
    }

    private func armTimeout() {
        guard let next = pending.values.map(\.deadline).min() else { return timeoutTimer.stop() }
        timeoutTimer.start(after: next > scheduler.now ? next - scheduler.now : 0) { [unowned self] in
            for (token, entry) in pending.sorted(by: { $0.key < $1.key }) where entry.deadline <= scheduler.now {
                pending[token] = nil
                timedOut(entry.what)
            }
            armTimeout()
            onChange?()
        }
    }

    private func timedOut(_ what: Pending) {
        let seconds = Double(settings.handlerTimeoutMilliseconds) / 1000
        switch what {
        case .selection(let app, let item):
            apps[app]?.handlerTimeouts += 1
            logger.warning("ui", "\(app) did not complete the selection of item \(item) within \(seconds) s (ui.handlerTimeoutMs); the runtime completed it")
        case .load(let app, let path):
            apps[app]?.handlerTimeouts += 1
            apps[app]?.content.loading.remove(path)
            apps[app]?.content.failures[path] = "\(app) did not finish loading within \(seconds) s"
            logger.warning("ui", "\(app) did not finish loading \"\(path)\" within \(seconds) s (ui.handlerTimeoutMs)")
        case .play(let app, let path):
            apps[app]?.handlerTimeouts += 1
            logger.warning("ui", "\(app) did not answer playing \"\(path)\" within \(seconds) s (ui.handlerTimeoutMs)")
        }
    }
}

/// How long plugins may take and how much they may hand over (`ui` in the config).
public struct InterfaceSettings: Sendable, Equatable {
    /// A selection, load or play not completed within this is completed by the runtime.
    public var handlerTimeoutMilliseconds = 10_000
    public var maxImageBytes = 1 << 20

    public init() {}
}
