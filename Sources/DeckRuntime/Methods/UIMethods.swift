import DeckBase
import DeckControl
import DeckUI

/// `ui.*` and `display.*`: a zone's foreground app's screen as the HMI lays it out, selecting,
/// going back, the apps' images, and each zone's display profile (driving on and off, for the
/// primary zone's only). Loop-thread-confined.
struct UIMethods {
    let interface: InterfaceCoordinator
    let zones: ZoneSet
    let scheduler: any Scheduler

    var methods: [RPCMethod] {
        let (interface, zones, scheduler) = (interface, zones, scheduler)
        let state = UIMethods.stateSchema
        return [
            RPCMethod("ui.get", "A zone's foreground app's screen (or app's): its visible template stack with the runtime's ids, "
                      + "truncation applied, the modal, its content tree, and the limits and quota in force.",
                      params: [.init("app", AppsMethods.pluginIDSchema, required: false), zones.param], result: state) { call throws(RPCError) in
                let app = try call.optionalString("app")
                if let app, interface.apps[app] == nil { throw .noSuchApp("\(app) (or it has no UI)") }
                let zone = try zones.named(by: call) ?? app.map(zones.zone(ofPlugin:)) ?? zones.primary
                return UIMethods.state(interface, zone: zone, scheduler: scheduler, app: app)
            },
            RPCMethod("ui.select", "Select an item, tab or action by id (its app completes it), or a content item by path "
                      + "(a container is browsed into, a playable item plays).",
                      params: [.init("id", UIMethods.idSchema, required: false), .init("path", Schema.string(maxLength: Schema.pathMax), required: false), zones.param],
                      result: state, errors: [-32001, -32004]) { call throws(RPCError) in
                let zone = try zones.zone(of: call)
                if let path = try call.optionalString("path") {
                    try interface.selectContent(path, zone: zone.index)
                } else if call.optional("id") != nil {
                    try interface.select(UInt64(try call.integer("id")), zone: zone.index)
                } else {
                    throw .invalidParams("give \"id\" (a positive integer from ui.get) or \"path\" (a content path)")
                }
                return UIMethods.state(interface, zone: zone, scheduler: scheduler)
            },
            RPCMethod("ui.button", "Press a button (grid, map, now-playing button, action) by id.",
                      params: [.init("id", UIMethods.idSchema), zones.param], result: state, errors: [-32004]) { call throws(RPCError) in
                let zone = try zones.zone(of: call)
                try interface.select(UInt64(try call.integer("id")), zone: zone.index)
                return UIMethods.state(interface, zone: zone, scheduler: scheduler)
            },
            RPCMethod("ui.back", "Go back: dismiss the modal, pop the top template, or leave a content level (at the root: nothing).",
                      params: [zones.param], result: state, errors: [-32004]) { call throws(RPCError) in
                let zone = try zones.zone(of: call)
                try interface.back(zone: zone.index)
                return UIMethods.state(interface, zone: zone, scheduler: scheduler)
            },
            RPCMethod("ui.image", "An image an app handed over (base64), by the id its templates name.",
                      params: [.init("app", AppsMethods.pluginIDSchema), .init("id", UIMethods.idSchema)],
                      result: NowPlayingMethods.artworkSchema, errors: [-32007]) { call throws(RPCError) in
                let app = try call.string("app")
                let id = try call.integer("id")
                guard let image = interface.apps[app]?.image(UInt64(id)) else { throw .noSuchContent("no image \(id) from \(app)") }
                return ["id": .string(image.id), "mimeType": .string(image.mimeType), "data": .string(Base64.encode(image.bytes))]
            },
            RPCMethod("display.get", "A zone's display profile: size, scale, driving (limited lists and keyboard), attached.",
                      params: [zones.param], result: UIMethods.displaySchema) { call throws(RPCError) in
                interface.profiles[try zones.zone(of: call).index].json
            },
            RPCMethod("display.set", "Change a zone's display profile (any of width, height, scale, driving, limitedUserInterfaces, "
                      + "contentStyle, attached); its apps are told and their screens held to the new limits. Driving limits "
                      + "only the primary zone's display.",
                      params: ["width", "height"].map { .init($0, Schema.integer(in: 240...8192), required: false) }
                        + [.init("scale", Schema.number(in: 0.5...4), required: false), .init("driving", Schema.boolean, required: false),
                           .init("limitedUserInterfaces", Schema.array(Schema.oneOf(["keyboard", "lists"])), required: false),
                           .init("contentStyle", Schema.oneOf(["light", "dark"]), required: false),
                           .init("attached", Schema.boolean, required: false), zones.param],
                      result: UIMethods.displaySchema) { call throws(RPCError) in
                let zone = try zones.zone(of: call)
                var profile = interface.profiles[zone.index]
                let given = DisplayProfile.keys.compactMap { name in call.optional(name).map { (name, $0) } }
                do throws(UIError) {
                    try profile.apply(.object(JSONObject(Dictionary(uniqueKeysWithValues: given))), in: "params")
                } catch {
                    throw .invalidParams(error.description)
                }
                guard zone.index == 0 || profile.limitedUserInterfaces.isEmpty else {
                    throw .invalidParams("driving limits only the primary zone's display (\(zones.primary.id)); a passenger display "
                                         + "is not limited by driving")
                }
                interface.setProfile(profile, zone: zone.index)
                return profile.json
            },
        ]
    }

    /// Ids of items, buttons and images, as `ui.get` hands them out.
    static let ids: ClosedRange<Int64> = 1...Int64.max
    static let idSchema = Schema.integer(in: ids)

    /// What `ui.get` answers and `ui.changed` carries: `zone`'s screen, its now playing.
    static func state(_ interface: InterfaceCoordinator, zone: Zone, scheduler: any Scheduler, app: String? = nil) -> JSONValue {
        interface.state(of: app, zone: zone.index) { zone.player.center.nowPlayingJSON(now: scheduler.now) }
    }

    static let displaySchema = Schema.object([
        "width": Schema.integer, "height": Schema.integer, "scale": Schema.number, "driving": Schema.boolean,
        "limitedUserInterfaces": Schema.array(Schema.oneOf(["keyboard", "lists"])), "contentStyle": Schema.oneOf(["light", "dark"]),
        "attached": Schema.boolean,
    ])

    static let stateSchema = Schema.object([
        "app": Schema.nullable(Schema.string), "apps": Schema.array(Schema.string), "display": displaySchema,
        "limits": ["type": "object"], "quotaRemaining": Schema.integer, "handlerTimeouts": Schema.integer,
        "images": Schema.object(["count": Schema.integer, "bytes": Schema.integer]),
        "stack": Schema.array(["type": "object"]), "modal": Schema.nullable(["type": "object"]), "selectedTab": Schema.integer,
        "pending": Schema.array(Schema.integer), "nowPlaying": ["type": "object"], "content": ["type": "object"],
    ], optional: ["limits", "quotaRemaining", "handlerTimeouts", "images", "stack", "modal", "selectedTab", "pending", "nowPlaying", "content"])
}
