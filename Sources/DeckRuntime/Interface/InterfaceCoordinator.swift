import DeckBase
import DeckPlugins
import DeckUI

/// The car's display as the runtime serves it: the display profile and the limits it gives each
/// app, every app's templates and content tree, the app in the foreground, and the selections and
/// loads waiting on a plugin's completion. Each audio zone has a display of its own with its
/// foreground app; an app is shown on its zone's display. Plugins' `deck.ui` and `deck.content`
/// calls arrive here; the HMI drives it through `ui.*` and `display.*`. Loop-thread-confined.
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

    /// Each zone's display, in zone order (the primary zone's first).
    public private(set) var profiles: [DisplayProfile]
    /// Every app with a UI side, by plugin id.
    public private(set) var apps: [String: AppInterface] = [:]
    /// Per zone, the app its HMI shows: the last launched there, else the first with a UI.
    public private(set) var foregrounds: [String?]
    /// The zone an app plays in (and is shown in).
    var zoneOf: (String) -> Int = { _ in 0 }
    /// Each zone's id, for logs.
    var zoneIDs = ["primary"]
    public let settings: InterfaceSettings
    let plugins: PluginDirectory
    /// Runs after anything `ui.get` shows changed.
    var onChange: (() -> Void)?
    var pending: [UInt64: (what: Pending, deadline: UInt64)] = [:]
    private var nextToken: UInt64 = 1
    /// Per app that went, the id its next interface starts from: an HMI that cached an image or
    /// kept an item id from before a restart never meets the id again for something else.
    private var nextIDs: [String: UInt64] = [:]
    private let timeoutTimer: any SchedulerTimer
    /// Loads the plugins completed, applied on the next loop turn: never inside the plugin's call.
    private var completedLoads: [(app: String, path: String, status: DeckStatus)] = []
    private let completionTimer: any SchedulerTimer
    let scheduler: any Scheduler
    let logger: Logger

    init(profiles: [DisplayProfile], settings: InterfaceSettings, plugins: PluginDirectory, scheduler: any Scheduler,
         logger: Logger) throws(LoopError) {
        self.profiles = profiles
        foregrounds = Array(repeating: nil, count: profiles.count)
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

    /// The primary zone's display.
    public var profile: DisplayProfile { profiles[0] }
    /// The app the primary zone's HMI shows.
    public var foreground: String? { foregrounds[0] }

    /// Whether `zone`'s foreground app shows the now-playing template (its changes are UI changes).
    func showsNowPlaying(zone: Int) -> Bool {
        guard let id = foregrounds[zone] else { return false }
        return apps[id]?.stack.showsNowPlaying ?? false
    }

    /// The display `app` is shown on: its zone's.
    func profile(of app: AppInterface) -> DisplayProfile { profiles[zoneOf(app.appID)] }

    public func limits(for app: AppInterface) -> DisplayLimits { DisplayLimits(profile: profile(of: app), entitlements: app.entitlements) }

    // MARK: Plugins coming and going

    /// A plugin became active: one with a UI side is shown the display, and must set its root
    /// while it is told (or it gets a placeholder).
    func activated(_ plugin: PluginInstance) {
        guard plugin.offersUI || plugin.offersContent else { return }
        let app = apps[plugin.id] ?? AppInterface(appID: plugin.id, entitlements: plugin.entitlements, maxImageBytes: settings.maxImageBytes,
                                                    maxImagePixels: settings.maxImagePixels, maxImageTotalBytes: settings.maxImageTotalBytes,
                                                    firstID: nextIDs[plugin.id] ?? 1)
        app.offersTemplates = plugin.offersUI
        app.offersContent = plugin.offersContent
        apps[plugin.id] = app
        let zone = zoneOf(plugin.id)
        if foregrounds[zone] == nil { foregrounds[zone] = plugin.id }
        if profiles[zone].attached { attach(plugin, app) }
        onChange?()
    }

    /// The plugin is going: its templates, tokens and images go with it.
    func release(_ pluginID: String) {
        guard let app = apps.removeValue(forKey: pluginID) else { return }
        nextIDs[pluginID] = app.nextID
        pending = pending.filter { $0.value.what.app != pluginID }
        for zone in foregrounds.indices where foregrounds[zone] == pluginID { foregrounds[zone] = firstApp(in: zone) }
        onChange?()
    }

    /// `apps.launch` from the HMI: the app comes to the foreground of its zone and starts a new task.
    public func launched(_ pluginID: String) {
        guard let app = apps[pluginID] else { return }
        foregrounds[zoneOf(pluginID)] = pluginID
        app.startTask()
        onChange?()
    }

    /// The app moved from zone `from` to its zone now: it leaves the old display's foreground,
    /// and is told the display it is shown on now when that differs.
    func moved(_ pluginID: String, from: Int) {
        let to = zoneOf(pluginID)
        if foregrounds[from] == pluginID { foregrounds[from] = firstApp(in: from) }
        guard let app = apps[pluginID], let plugin = plugins.plugin(id: pluginID) else { return }
        if foregrounds[to] == nil { foregrounds[to] = pluginID }
        let (before, after) = (profiles[from], profiles[to])
        if before.attached != after.attached {
            if after.attached {
                attach(plugin, app)
            } else {
                app.clear()
                pending = pending.filter { $0.value.what.app != pluginID }
                plugin.notifyDisplay(attached: false, profile: after.json.encoded())
            }
        } else if after.attached {
            notifyLimits(app, from: DisplayLimits(profile: before, entitlements: app.entitlements))
        }
        onChange?()
    }

    /// The first app with a UI shown in `zone`, by id.
    private func firstApp(in zone: Int) -> String? { apps.keys.sorted().first { zoneOf($0) == zone } }

    private func attach(_ plugin: PluginInstance, _ app: AppInterface) {
        guard app.offersTemplates else { return }
        plugin.notifyDisplay(attached: true, profile: profile(of: app).json.encoded())
        if app.stack.root == nil {
            logger.warning("ui", "\(plugin.id) set no root template when the display attached; it shows a placeholder")
            app.setPlaceholder(title: plugin.manifest.name)
        }
    }

    // MARK: The display

    /// Takes a new profile for `zone`'s display (`display.set`): attaching or detaching tells
    /// every app with a UI shown on it; new limits are applied to what is shown and each app is told.
    public func setProfile(_ next: DisplayProfile, zone: Int = 0) {
        let before = profiles[zone]
        profiles[zone] = next
        logger.info("ui", "display\(profiles.count > 1 ? " of zone \(zoneIDs[zone])" : ""): \(next.width)×\(next.height) @\(next.scale)x, "
                    + (next.attached ? "attached" : "detached") + (next.driving ? ", driving (lists limited)" : ""))
        let shown = apps.values.filter { zoneOf($0.appID) == zone }.sorted { $0.appID < $1.appID }
        if before.attached != next.attached {
            for app in shown {
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
            for app in shown { notifyLimits(app, from: DisplayLimits(profile: before, entitlements: app.entitlements)) }
        }
        onChange?()
    }

    /// Tells `app` its limits when they differ from `old`, and holds its content to them.
    private func notifyLimits(_ app: AppInterface, from old: DisplayLimits) {
        let new = limits(for: app)
        guard old != new else { return }
        if new.contentItems != old.contentItems || new.contentDepth != old.contentDepth {
            app.content.applyDepth(new.contentDepth)
        }
        plugins.plugin(id: app.appID)?.notifyLimits(new.json.encoded())
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
    /// One image's pixels (4096 × 4096), as its header gives them: what the screen must decode.
    public var maxImagePixels = 1 << 24
    /// All of one app's images together (add_image past it is refused until it removes some).
    public var maxImageTotalBytes = 32 << 20

    public init() {}
}
