import DeckAudio
import DeckBase
import DeckControl
import DeckPlugins

/// `zones.*`: the car's audio zones, each with its sinks, its session and its apps; binding a
/// connection to one. Loop-thread-confined.
struct ZonesMethods {
    let zones: ZoneSet
    let output: Output
    let registry: PluginRegistry

    var methods: [RPCMethod] {
        let (zones, output, registry) = (zones, output, registry)
        return [
            RPCMethod("zones.list", "Every audio zone, the primary one first: its sinks, the contexts it shares with the others, "
                      + "whether its session is active, who owns its now playing and which apps play in it.",
                      result: Schema.object(["zones": Schema.array(ZonesMethods.zoneSchema)])) { _ in
                ["zones": .array(zones.list.map { ZonesMethods.describe($0, output: output, registry: registry, zones: zones) })]
            },
            RPCMethod("zones.bind", "Bind this connection to a zone (null: the primary zone again): its calls that name no zone "
                      + "act on it, as a rear-seat HMI's would.",
                      params: [.init("zone", Schema.nullable(zones.idSchema), "a zone id from zones.list, or null")],
                      result: Schema.object(["zone": Schema.string])) { call throws(RPCError) in
                guard call.optional("zone") != nil else { throw .invalidParams("\"zone\" is required (a zone id, or null)") }
                let zone = try call.optionalString("zone").map(zones.zone(named:)) ?? zones.primary
                call.connection.zone = zone.id  // the primary too: its launches play there, not in an app's own zone
                return ["zone": .string(zone.id)]
            },
        ]
    }

    static func describe(_ zone: Zone, output: Output, registry: PluginRegistry, zones: ZoneSet) -> JSONValue {
        [
            "id": .string(zone.id), "name": .string(zone.settings.name), "primary": .bool(zone.index == 0),
            "sinks": .array(output.sinks(inZone: zone.index).map { .int(Int64($0.id)) }),
            "sharedContexts": .array(zone.settings.sharedContexts.map(\.rawValue).sorted().map(JSONValue.string)),
            "active": .bool(zone.focus.session.isActive),
            "owner": zone.player.center.owner.map(JSONValue.string) ?? .null,
            "apps": .array(registry.filter { zones.zone(ofPlugin: $0.id) === zone }.map { .string($0.id) }),
        ]
    }

    static let zoneSchema = Schema.object([
        "id": Schema.string, "name": Schema.string, "primary": Schema.boolean, "sinks": Schema.array(Schema.integer),
        "sharedContexts": Schema.array(Schema.string), "active": Schema.boolean, "owner": Schema.nullable(Schema.string),
        "apps": Schema.array(Schema.string),
    ])
}
