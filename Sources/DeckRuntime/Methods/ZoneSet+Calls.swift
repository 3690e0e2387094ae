import DeckBase
import DeckControl

extension ZoneSet {
    /// The optional `zone` every zone-scoped method takes.
    static var param: RPCMethod.Param { .init("zone", Schema.string, required: false, "a zone id from zones.list; default: the primary zone") }

    /// The zone a call names in `zone`, the primary one when it names none.
    func zone(of call: RPCCall) throws(RPCError) -> Zone {
        guard let id = try call.optionalString("zone") else { return primary }
        guard let zone = zone(id) else {
            throw .invalidParams("unknown zone \"\(id)\" (zones: \(list.map(\.id).joined(separator: ", ")))")
        }
        return zone
    }
}
