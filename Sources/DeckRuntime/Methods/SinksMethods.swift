import DeckBase
import DeckStream
import DeckControl
import DeckSession

/// `sinks.*`: where the Opus stream goes, with names, kinds and counters; adding, removing, and
/// choosing where a zone's app audio goes (the output picker). Each sink is in one zone.
/// Loop-thread-confined.
struct SinksMethods {
    let output: Output
    let zones: ZoneSet
    /// Contexts whose audio stays on a named sink.
    let pins: [AudioContext: String]
    let events: EventPublisher
    let state: StateKeeper
    let logger: Logger

    /// Clients' refused `sinks.add` calls, logged once per burst: a client retrying in a loop
    /// hears each reason in its answer but does not flood the log. Loop-thread-confined.
    private final class Refusals {
        var throttle = LogThrottle()
    }

    var methods: [RPCMethod] {
        let (output, zones, pins, events, state, logger) = (output, zones, pins, events, state, logger)
        let refusals = Refusals()
        return [
            RPCMethod("sinks.list", "Every sink with its zone and counters; with a zone, that zone's sinks only.",
                      params: [.init("zone", zones.idSchema, required: false, "a zone id from zones.list: only its sinks")],
                      result: Schema.array(SinksMethods.sinkSchema)) { call throws(RPCError) in
                guard call.optional("zone") != nil, let zone = try zones.named(by: call) else {
                    return SinksMethods.list(output, pins: pins, zones: zones)
                }
                return .array(output.sinks(inZone: zone.index).map {
                    SinksMethods.describe($0, output, pins: pins, zones: zones)
                })
            },
            RPCMethod("sinks.add", "Open a sink by URI (file:, http://, rtp://; name= and kind= label it), in a zone (default: "
                      + "the one the config names for it, else the primary one).",
                      params: [.init("uri", Schema.string(maxLength: Schema.pathMax)), zones.param],
                      result: SinksMethods.sinkSchema, errors: [-32001, -32004]) { call throws(RPCError) in
                let uri = try call.string("uri")
                let zone = try zones.named(by: call)?.index
                let info: SinkInfo
                do throws(SinkError) {
                    info = try output.addSink(uri, fromClient: true, zone: zone)
                } catch {
                    let (log, held) = refusals.throttle.admit(now: UInt64(MonotonicClock.milliseconds))
                    if log { logger.warning("sinks", "a client's sinks.add was refused: \(error)\(LogThrottle.suffix(held))") }
                    if case .tooMany = error { throw .limit(error.description) }
                    throw .commandFailed(error.description)
                }
                events.sinksChanged()
                return SinksMethods.describe(info, output, pins: pins, zones: zones)
            },
            RPCMethod("sinks.remove", "Close and forget a sink.", params: [.init("id", SinksMethods.idSchema)],
                      result: Schema.boolean, errors: [-32004]) { call throws(RPCError) in
                let id = Int(try call.integer("id"))
                do throws(SinkError) { try output.removeSink(id) } catch { throw .commandFailed(error.description) }
                events.sinksChanged()
                state.save()
                return true
            },
            RPCMethod("sinks.select", "Send a zone's app audio to these of its sinks only (without ids: to every sink of the zone); "
                      + "pinned contexts stay on their sink. Saved with the state.",
                      params: [.init("ids", Schema.array(SinksMethods.idSchema), required: false), zones.param],
                      result: Schema.array(SinksMethods.sinkSchema), errors: [-32004]) { call throws(RPCError) in
                let zone = try zones.zone(of: call)
                var ids: [Int]?
                if let value = call.optional("ids"), value != .null {
                    guard let items = value.arrayValue, !items.isEmpty else {
                        throw .invalidParams("\"ids\" must be a non-empty array of sink ids (omit it for every sink)")
                    }
                    if let odd = items.firstIndex(where: { $0.integer(in: SinksMethods.ids) == nil }) {
                        throw .invalidParams("\"ids\"[\(odd)] is not a sink id: ids are whole numbers from 0 (sinks.list lists them)")
                    }
                    ids = items.compactMap { $0.integer(in: SinksMethods.ids) }
                }
                do throws(SinkError) { try output.select(ids, zone: zone.index) } catch { throw .commandFailed(error.description) }
                events.sinksChanged()
                state.save()
                return SinksMethods.list(output, pins: pins, zones: zones)
            },
        ]
    }

    static func list(_ output: Output, pins: [AudioContext: String], zones: ZoneSet) -> JSONValue {
        .array(output.sinks.list.map { describe($0, output, pins: pins, zones: zones) })
    }

    static func describe(_ sink: SinkInfo, _ output: Output, pins: [AudioContext: String], zones: ZoneSet) -> JSONValue {
        let pinned = pins.filter { $0.value == sink.name }.keys.map(\.rawValue).sorted()
        var object: JSONObject = [
            "id": .int(Int64(sink.id)), "uri": .string(sink.uri), "name": .string(sink.name), "kind": .string(sink.kind.rawValue),
            "selected": .bool(output.carriesAppAudio(sink.id)), "pinned": .array(pinned.map(JSONValue.string)),
            "packets": .int(Int64(sink.status.packets)),
            "bytes": .int(Int64(sink.status.bytes)), "errors": .int(Int64(sink.status.errors)),
        ]
        if zones.isConfigured { object["zone"] = .string(zones.list[output.zone(ofSink: sink.id)].id) }
        if let error = sink.status.lastError { object["lastError"] = .string(error) }
        if sink.status.failed { object["failed"] = true; object["droppedPackets"] = .int(Int64(sink.status.droppedPackets)) }
        if let clients = sink.status.clients { object["clients"] = .int(Int64(clients)) }
        if let dropped = sink.status.droppedClients { object["droppedClients"] = .int(Int64(dropped)) }
        return .object(object)
    }

    /// Sink ids, as `sinks.list` hands them out.
    static let ids: ClosedRange<Int> = 0...Int(Int32.max)
    static let idSchema = Schema.integer(in: 0...Int64(Int32.max))

    static let sinkSchema = Schema.object([
        "id": Schema.integer, "uri": Schema.string, "name": Schema.string, "kind": Schema.oneOf(SinkKind.allCases.map(\.rawValue)), "zone": Schema.string,
        "selected": Schema.boolean, "pinned": Schema.array(Schema.string), "packets": Schema.integer, "bytes": Schema.integer, "errors": Schema.integer,
        "lastError": Schema.string, "failed": Schema.boolean, "droppedPackets": Schema.integer,
        "clients": Schema.integer, "droppedClients": Schema.integer,
    ], optional: ["zone", "lastError", "failed", "droppedPackets", "clients", "droppedClients"])
}
