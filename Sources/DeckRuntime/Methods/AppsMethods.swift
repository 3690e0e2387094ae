import DeckBase
import DeckPlugins
import DeckControl

/// `apps.*`: loaded apps and refused bundles; loading, unloading and launching. Loop-thread-confined.
struct AppsMethods {
    let registry: PluginRegistry
    let supervisor: PluginSupervisor
    let zones: ZoneSet
    let interface: InterfaceCoordinator
    let events: EventPublisher

    var methods: [RPCMethod] {
        let (registry, supervisor, zones, interface, events) = (registry, supervisor, zones, interface, events)
        let id = RPCMethod.Param("id", AppsMethods.pluginIDSchema, "a plugin id, e.g. org.deck.tone")
        return [
            RPCMethod("apps.list", "Loaded apps with state, effective entitlements and permissions, and refused bundles.",
                      result: AppsMethods.listSchema) { _ in AppsMethods.list(registry, zones: zones) },
            RPCMethod("apps.load", "Load and activate the bundle at a path (a crashed or disabled app from it starts again).",
                      params: [.init("path", Schema.string(maxLength: Schema.pathMax), "the absolute path of a NAME.deckplugin folder")],
                      result: AppsMethods.appSchema, errors: [-32004]) { call throws(RPCError) in
                let path = try call.string("path")
                // The client's working folder is not deckd's: a relative path would name another place.
                guard path.hasPrefix("/") else { throw .invalidParams("\"path\" must be absolute (/…/NAME.deckplugin), not \(JSONValue.string(path).encoded())") }
                if let plugin = supervisor.revive(bundle: path) {
                    return AppsMethods.describe(plugin, zones: zones)
                }
                guard let plugin = registry.load(path, recordFailure: false) else {
                    if case .duplicateID(let id, let first)? = registry.lastLoadFailure?.reason {
                        throw .commandFailed("\(id) is already loaded, from \(first): apps.reload loads it again from its bundle; "
                                             + "apps.unload first to load it from another")
                    }
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
                return AppsMethods.describe(plugin, zones: zones)
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
                return AppsMethods.describe(plugin, zones: zones)
            },
            RPCMethod("apps.launch", "Activate an app and ask it to play an item (its default when none) in a zone (the one it "
                      + "is in when none is named); an app that owns now playing and is paused resumes instead, and a crashed or "
                      + "disabled one starts again first. An app plays in one zone at a time: apps.move moves one that plays.",
                      params: [id, .init("item", Schema.string(maxLength: Schema.pathMax), required: false),
                               .init("zone", zones.idSchema, required: false,
                                     "a zone id from zones.list; default: the zone the connection is bound to, else the app's zone")],
                      result: AppsMethods.appSchema, errors: [-32000, -32003, -32004]) { call throws(RPCError) in
                let (id, item, named) = (try call.string("id"), try call.optionalString("item"), try zones.named(by: call))
                _ = supervisor.revive(id: id)
                guard let plugin = registry.plugin(id: id) else { throw .noSuchApp(id) }
                if let named, let refusal = zones.claim(id, for: named) {
                    throw .commandFailed(refusal + " (apps.move moves it with what it plays)")
                }
                if plugin.state == .initialized {
                    do throws(PluginCallError) { try plugin.activate() } catch { throw .commandFailed(error.message) }
                }
                interface.launched(id)
                let zone = zones.zone(ofPlugin: id)
                let (focus, player) = (zone.focus, zone.player)
                let center = player.center
                if item == nil, center.owner == id, center.info.playbackState == .paused, center.commands.contains(.play) {
                    var failure: RPCError?
                    player.send(.play) { if case .failure(let error) = PlayerMethods.answer($0, .play) { failure = error } }
                    if let failure { throw failure }
                    return AppsMethods.describe(plugin, zones: zones)
                }
                let outcome: FocusCoordinator.PlayOutcome
                do throws(PluginCallError) {
                    outcome = try focus.play(pluginID: id, item: item)
                } catch {
                    throw error.status == .notEntitled ? .notEntitled(error.message) : .commandFailed(error.message)
                }
                if case .silent(let reason) = outcome { throw .commandFailed(reason) }
                events.appsChanged()
                return AppsMethods.describe(plugin, zones: zones)
            },
            RPCMethod("apps.move", "Move an app to another zone with what it plays: its focus request is made again in that "
                      + "zone's session, its stream is heard there from the next frame, its now playing goes along. When that "
                      + "zone does not grant it, the app is told it lost focus.",
                      params: [id, .init("zone", zones.idSchema, "a zone id from zones.list")],
                      result: AppsMethods.appSchema, errors: [-32003]) { call throws(RPCError) in
                let id = try call.string("id")
                _ = try call.string("zone")
                let target = try zones.zone(of: call)
                guard let plugin = registry.plugin(id: id) else { throw .noSuchApp(id) }
                zones.move(id, to: target)
                events.appsChanged()
                return AppsMethods.describe(plugin, zones: zones)
            },
        ]
    }

    /// What `apps.list` and `apps.changed` carry; members in key order, nothing to sort.
    static func list(_ registry: PluginRegistry, zones: ZoneSet) -> JSONValue {
        .object(JSONObject(inKeyOrder: [
            .init("apps", .array(registry.map { describe($0, zones: zones) })),
            .init("refused", .array(registry.loadFailures.map {
                .object(JSONObject(inKeyOrder: [.init("bundle", .string($0.bundle)), .init("reason", .string($0.reasonText))]))
            })),
        ]))
    }

    static func describe(_ plugin: PluginInstance, zones: ZoneSet) -> JSONValue {
        let counters = plugin.streamCounters
        let streaming = zones.isStreaming(plugin.id)
        var described: [JSONObject.Member] = [
            .init("bundle", .string(plugin.bundlePath)),
            .init("clippedFrames", .int(Int64(counters.clippedFrames.load(ordering: .relaxed)))),
            .init("dataFolder", plugin.dataFolder.map { .string($0) } ?? .null),
            .init("entitlements", .array(plugin.entitlements.sorted().map { .string($0.rawValue) })),
            .init("id", .string(plugin.id)),
            .init("invalidFrames", .int(Int64(counters.invalidFrames.load(ordering: .relaxed)))),
            .init("isolation", .string(plugin.processID == nil ? "inline" : "process")),
            .init("language", .string(plugin.isSwift ? "swift" : "c")),
            .init("lateFrames", plugin.lateFrames.map { .int(Int64($0)) } ?? .null),
            .init("name", .string(plugin.manifest.name)),
            .init("offers", .array(plugin.offeredExtensions.map { .string($0) })),
            .init("permissions", .array(plugin.permissions.sorted().map { .string($0.rawValue) })),
            .init("pid", plugin.processID.map { .int(Int64($0)) } ?? .null),
            .init("renderMs", counters.timesRender ? renderTimes(counters) : .null),
            .init("renderedFrames", .int(Int64(counters.renderedFrames.load(ordering: .relaxed)))),
            .init("state", .string(plugin.state.rawValue)),
            .init("streaming", .bool(streaming)),
            .init("subnormalFrames", .int(Int64(counters.subnormalFrames.load(ordering: .relaxed)))),
            .init("underrunFrames", .int(Int64(counters.underrunFrames.load(ordering: .relaxed)))),
            .init("version", .string(plugin.manifest.version.description)),
        ]
        if zones.isConfigured { described.append(.init("zone", .string(zones.zone(ofPlugin: plugin.id).id))) }
        return .object(JSONObject(inKeyOrder: described))
    }

    /// Its render calls' durations and how many blocked (timed inline only: in a host process the
    /// audio thread reads a ring).
    private static func renderTimes(_ counters: StreamCounters) -> JSONValue {
        let times = counters.renderTimes
        let ms = { (nanoseconds: Int) in JSONValue.double(Double(nanoseconds) / 1e6) }
        return .object(JSONObject(inKeyOrder: [
            .init("blocked", .int(Int64(counters.blockedRenders.load(ordering: .relaxed)))), .init("calls", .int(Int64(times.count))),
            .init("max", ms(times.maximum)), .init("p50", ms(times.quantile(0.5))), .init("p99", ms(times.quantile(0.99))),
        ]))
    }

    /// A plugin id: reverse-DNS, at most 255 characters like the manifest's.
    static let pluginIDSchema = Schema.string(maxLength: 255)

    static let appSchema = Schema.object([
        "id": Schema.string, "name": Schema.string, "version": Schema.string,
        "state": Schema.oneOf(PluginInstance.State.allCases.map(\.rawValue)), "language": Schema.oneOf(["swift", "c"]),
        "entitlements": Schema.array(Schema.oneOf(Entitlement.allCases.map(\.rawValue))),
        "permissions": Schema.array(Schema.oneOf(Permission.allCases.map(\.rawValue))), "dataFolder": Schema.nullable(Schema.string),
        "bundle": Schema.string, "zone": Schema.string,
        "streaming": Schema.boolean, "offers": Schema.array(Schema.oneOf(["audio", "now-playing", "ui", "content"])), "isolation": Schema.oneOf(["inline", "process"]), "pid": Schema.nullable(Schema.integer),
        "renderedFrames": Schema.integer, "underrunFrames": Schema.integer, "lateFrames": Schema.nullable(Schema.integer), "invalidFrames": Schema.integer, "clippedFrames": Schema.integer, "subnormalFrames": Schema.integer,
        "renderMs": Schema.nullable(Schema.object(["calls": Schema.integer, "p50": Schema.number, "p99": Schema.number, "max": Schema.number,
                                                    "blocked": Schema.integer])),
    ], optional: ["zone"])

    static let listSchema = Schema.object([
        "apps": Schema.array(appSchema),
        "refused": Schema.array(Schema.object(["bundle": Schema.string, "reason": Schema.string])),
    ])
}
