import DeckBase
import DeckControl

extension ZoneSet {
    /// A zone id, as `rpc.discover` tells clients: one of the zones there are.
    var idSchema: JSONValue { Schema.oneOf(list.map(\.id)) }

    /// The optional `zone` every zone-scoped method takes.
    var param: RPCMethod.Param {
        .init("zone", idSchema, required: false, "a zone id from zones.list; default: the zone the connection is bound to, else the primary zone")
    }

    /// The zone a call names in `zone`, else the one its connection is bound to, else the primary one.
    func zone(of call: RPCCall) throws(RPCError) -> Zone { try named(by: call) ?? primary }

    /// The zone a call names in `zone`, else the one its connection is bound to; nil when neither.
    func named(by call: RPCCall) throws(RPCError) -> Zone? {
        guard let id = try call.optionalString("zone") ?? call.connection.zone else { return nil }
        return try zone(named: id)
    }

    /// The zone with this id; an unknown id is an error naming the zones there are.
    func zone(named id: String) throws(RPCError) -> Zone {
        guard let zone = zone(id) else {
            throw .invalidParams("unknown zone \"\(id)\" (zones: \(list.map(\.id).joined(separator: ", ")))")
        }
        return zone
    }
}
