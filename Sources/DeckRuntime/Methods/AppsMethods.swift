import DeckBase
import DeckPlugins
import DeckControl

/// `apps.*`: loaded apps and refused bundles; loading, unloading and launching. Loop-thread-confined.
struct AppsMethods {
    let registry: PluginRegistry
    let supervisor: PluginSupervisor
    let focus: FocusCoordinator
    let player: PlayerCoordinator
    let interface: InterfaceCoordinator
    let events: EventPublisher

    var methods: [RPCMethod] {
        let (registry, supervisor, focus, player, interface, events) = (registry, supervisor, focus, player, interface, events)
        let id = RPCMethod.Param("id", Schema.string, "a plugin id, e.g. org.deck.tone")
        return [
            RPCMethod("apps.list", "Loaded apps with state, effective entitlements and permissions, and refused bundles.",
                      result: AppsMethods.listSchema) { _ in AppsMethods.list(registry, focus: focus) },
            RPCMethod("apps.load", "Load and activate the bundle at a path (a crashed or disabled app from it starts again).",
                      params: [.init("path", Schema.string, "a NAME.deckplugin folder")],
                      result: AppsMethods.appSchema, errors: [-32004]) { call throws(RPCError) in
                let path = try call.string("path")
                if let plugin = supervisor.revive(bundle: path) {
                    return AppsMethods.describe(plugin, streaming: focus.isStreaming(plugin.id))
                }
                guard let plugin = registry.load(path, recordFailure: false) else {
                    throw .commandFailed(registry.lastLoadFailure?.reasonText ?? "not loaded")
                }
                do throws(PluginCallError) {
                    try plugin.activate()
                } catch {
                    // Not left half-loaded: the client hears why, and a later apps.load starts afresh.
                    registry.unload(plugin)
                    events.appsChanged()
                    throw .commandFailed(error.message)
                }
                events.appsChanged()
                return AppsMethods.describe(plugin, streaming: focus.isStreaming(plugin.id))
            },
            RPCMethod("apps.unload", "Deactivate, destroy and forget an app.", params: [id],
                      result: Schema.boolean, errors: [-32003]) { call throws(RPCError) in
                let id = try call.string("id")
                guard let plugin = registry.plugin(id: id) else { throw .noSuchApp(id) }
                supervisor.forgive(id)
                registry.unload(plugin)
                events.appsChanged()
                return true
            },
            RPCMethod("apps.reload", "Load an app again from its bundle (after its author rebuilt it): unloaded, loaded and "
                      + "activated; one that was playing plays again from where it was.", params: [id],
                      result: AppsMethods.appSchema, errors: [-32003, -32004]) { call throws(RPCError) in
                let id = try call.string("id")
                guard registry.plugin(id: id) != nil else { throw .noSuchApp(id) }
                guard let plugin = supervisor.reload(id) else {
                    throw .commandFailed("\(id) was unloaded but not loaded again: \(registry.lastLoadFailure?.reasonText ?? "refused")")
                }
                return AppsMethods.describe(plugin, streaming: focus.isStreaming(plugin.id))
            },
            RPCMethod("apps.launch", "Activate an app and ask it to play an item (its default when none); an app that owns "
                      + "now playing and is paused resumes instead, and a crashed or disabled one starts again first.",
                      params: [id, .init("item", Schema.string, required: false)],
                      result: AppsMethods.appSchema, errors: [-32000, -32003, -32004]) { call throws(RPCError) in
                let id = try call.string("id")
                _ = supervisor.revive(id: id)
                guard let plugin = registry.plugin(id: id) else { throw .noSuchApp(id) }
                if plugin.state == .initialized {
                    do throws(PluginCallError) { try plugin.activate() } catch { throw .commandFailed(error.message) }
                }
                interface.launched(id)
                let item = try call.optionalString("item")
                let center = player.center
                if item == nil, center.owner == id, center.info.playbackState == .paused, center.commands.contains(.play) {
                    var failure: RPCError?
                    player.send(.play) { if case .failure(let error) = PlayerMethods.answer($0, .play) { failure = error } }
                    if let failure { throw failure }
                    return AppsMethods.describe(plugin, streaming: focus.isStreaming(plugin.id))
                }
                let outcome: FocusCoordinator.PlayOutcome
                do throws(PluginCallError) {
                    outcome = try focus.play(pluginID: id, item: item)
                } catch {
                    throw error.status == .notEntitled ? .notEntitled(error.message) : .commandFailed(error.message)
                }
                if case .silent(let reason) = outcome { throw .commandFailed(reason) }
                events.appsChanged()
                return AppsMethods.describe(plugin, streaming: focus.isStreaming(plugin.id))
            },
        ]
    }

    /// What `apps.list` and `apps.changed` carry.
    static func list(_ registry: PluginRegistry, focus: FocusCoordinator) -> JSONValue {
        [
            "apps": .array(registry.map { describe($0, streaming: focus.isStreaming($0.id)) }),
            "refused": .array(registry.loadFailures.map { ["bundle": .string($0.bundle), "reason": .string($0.reasonText)] }),
        ]
    }

    static func describe(_ plugin: PluginInstance, streaming: Bool) -> JSONValue {
        let counters = plugin.streamCounters
        return [
            "id": .string(plugin.id), "name": .string(plugin.manifest.name), "version": .string(plugin.manifest.version.description),
            "state": .string(plugin.state.rawValue), "language": .string(plugin.isSwift ? "swift" : "c"),
            "entitlements": .array(plugin.entitlements.sorted().map { .string($0.rawValue) }),
            "permissions": .array(plugin.permissions.sorted().map { .string($0.rawValue) }),
            "dataFolder": plugin.dataFolder.map { .string($0) } ?? .null,
            "bundle": .string(plugin.bundlePath), "streaming": .bool(streaming),
            "offers": .array(plugin.offeredExtensions.map { .string($0) }),
            "isolation": .string(plugin.processID == nil ? "inline" : "process"),
            "pid": plugin.processID.map { .int(Int64($0)) } ?? .null,
            "underrunFrames": .int(Int64(counters.underrunFrames.load(ordering: .relaxed))),
            "invalidFrames": .int(Int64(counters.invalidFrames.load(ordering: .relaxed))),
            "clippedFrames": .int(Int64(counters.clippedFrames.load(ordering: .relaxed))),
            "subnormalFrames": .int(Int64(counters.subnormalFrames.load(ordering: .relaxed))),
            "renderMs": counters.timesRender ? renderTimes(counters) : .null,
        ]
    }

    /// Its render calls' durations and how many blocked (timed inline only: in a host process the
    /// audio thread reads a ring).
    private static func renderTimes(_ counters: StreamCounters) -> JSONValue {
        let times = counters.renderTimes
        let ms = { (nanoseconds: Int) in JSONValue.double(Double(nanoseconds) / 1e6) }
        return ["calls": .int(Int64(times.count)), "p50": ms(times.quantile(0.5)), "p99": ms(times.quantile(0.99)), "max": ms(times.maximum),
                "blocked": .int(Int64(counters.blockedRenders.load(ordering: .relaxed)))]
    }

    static let appSchema = Schema.object([
        "id": Schema.string, "name": Schema.string, "version": Schema.string,
        "state": Schema.oneOf(PluginInstance.State.allCases.map(\.rawValue)), "language": Schema.oneOf(["swift", "c"]),
        "entitlements": Schema.array(Schema.oneOf(Entitlement.allCases.map(\.rawValue))),
        "permissions": Schema.array(Schema.oneOf(Permission.allCases.map(\.rawValue))), "dataFolder": Schema.nullable(Schema.string),
        "bundle": Schema.string,
        "streaming": Schema.boolean, "offers": Schema.array(Schema.oneOf(["audio", "now-playing", "ui", "content"])), "isolation": Schema.oneOf(["inline", "process"]), "pid": Schema.nullable(Schema.integer),
        "underrunFrames": Schema.integer, "invalidFrames": Schema.integer, "clippedFrames": Schema.integer, "subnormalFrames": Schema.integer,
        "renderMs": Schema.nullable(Schema.object(["calls": Schema.integer, "p50": Schema.number, "p99": Schema.number, "max": Schema.number,
                                                    "blocked": Schema.integer])),
    ])

    static let listSchema = Schema.object([
        "apps": Schema.array(appSchema),
        "refused": Schema.array(Schema.object(["bundle": Schema.string, "reason": Schema.string])),
    ])
}
