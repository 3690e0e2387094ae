import DeckBase
import DeckControl
import DeckSession

/// `volume.*`: the volume groups (AAOS's CarVolumeGroup): read, set, step as the volume keys do,
/// mute. Every change ramps the streams of the group and publishes `volume.changed`, as does a
/// change of the group the keys act on. Each zone has its own groups (default: the primary
/// zone's). Loop-thread-confined.
struct VolumeMethods {
    let zones: ZoneSet

    var methods: [RPCMethod] {
        let zones = zones
        let group = RPCMethod.Param("group", VolumeMethods.groupSchema, "a volume group, e.g. media")
        return [
            RPCMethod("volume.get", "Every volume group: its contexts, index, range, mute and level in dB; and which group the "
                      + "volume keys act on now (keys).", params: [zones.param], result: VolumeMethods.stateSchema) { call throws(RPCError) in
                VolumeMethods.state(try zones.zone(of: call).focus)
            },
            RPCMethod("volume.set", "Set a group's index.", params: [group, .init("index", Schema.integer(in: 0...100)), zones.param],
                      result: VolumeMethods.stateSchema, errors: [-32004]) { call throws(RPCError) in
                let focus = try zones.zone(of: call).focus
                let name = try call.string("group"), index = Int(try call.integer("index"))
                try VolumeMethods.change(focus) { groups throws(VolumeError) in try groups.set(name, index: index) }
                return VolumeMethods.state(focus)
            },
            RPCMethod("volume.adjust", "Step a group's index up or down, as the volume keys do; without a group, the group of "
                      + "the most important context playing.",
                      params: [.init("steps", Schema.integer(in: -100...100), "volume steps; a group has at most 100"),
                               .init("group", VolumeMethods.groupSchema, required: false), zones.param],
                      result: VolumeMethods.adjustedSchema, errors: [-32004]) { call throws(RPCError) in
                let focus = try zones.zone(of: call).focus
                let name = try call.optionalString("group") ?? focus.activeVolumeGroup
                let steps = Int(try call.integer("steps"))
                try VolumeMethods.change(focus) { groups throws(VolumeError) in try groups.adjust(name, steps: steps) }
                guard case .object(var state) = VolumeMethods.state(focus) else { return .null }
                state["adjusted"] = .string(name)
                return .object(state)
            },
            RPCMethod("volume.mute", "Mute or unmute a group.", params: [group, .init("muted", Schema.boolean), zones.param],
                      result: VolumeMethods.stateSchema, errors: [-32004]) { call throws(RPCError) in
                let focus = try zones.zone(of: call).focus
                let name = try call.string("group")
                guard let muted = call.optional("muted")?.boolValue else { throw .invalidParams("\"muted\" must be true or false") }
                try VolumeMethods.change(focus) { groups throws(VolumeError) in try groups.mute(name, muted) }
                return VolumeMethods.state(focus)
            },
        ]
    }

    private static func change(_ focus: FocusCoordinator, _ body: (inout VolumeGroups) throws(VolumeError) -> Void) throws(RPCError) {
        do throws(VolumeError) { try focus.changeVolume(body) } catch { throw .commandFailed(error.description) }
    }

    /// What `volume.get` and `volume.changed` carry: the groups, and the one the keys act on now;
    /// each group's members written in key order, as the other hot answers are (no literal to sort).
    static func state(_ focus: FocusCoordinator) -> JSONValue {
        .object(JSONObject(inKeyOrder: [.init("groups", .array(focus.session.volume.groups.map { group in
            .object(JSONObject(inKeyOrder: [
                .init("contexts", .array(group.contexts.map { .string($0.rawValue) })),
                .init("decibels", group.decibels.map { .double($0) } ?? .null),
                .init("index", .int(Int64(group.index))),
                .init("maxIndex", .int(Int64(group.maxIndex))),
                .init("minIndex", .int(Int64(group.lowestIndex))),
                .init("muted", .bool(group.muted)),
                .init("name", .string(group.name)),
            ]))
        })), .init("keys", .string(focus.activeVolumeGroup))]))
    }

    static let groupSchema = Schema.string(maxLength: VolumeGroups.maxNameBytes)

    private static let groupsSchema = Schema.array(Schema.object([
        "name": Schema.string, "contexts": Schema.array(Schema.oneOf(AudioContext.allCases.map(\.rawValue))),
        "index": Schema.integer, "minIndex": Schema.integer, "maxIndex": Schema.integer, "muted": Schema.boolean, "decibels": Schema.nullable(Schema.number),
    ]))

    static let stateSchema = Schema.object(["groups": groupsSchema, "keys": Schema.string])

    /// `volume.adjust` also names the group it stepped.
    static let adjustedSchema = Schema.object(["groups": groupsSchema, "keys": Schema.string, "adjusted": Schema.string])
}
