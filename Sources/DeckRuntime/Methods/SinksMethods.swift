import DeckBase
import DeckStream
import DeckControl

/// `sinks.*`: where the Opus stream goes, with counters; adding and removing. Loop-thread-confined.
struct SinksMethods {
    unowned let runtime: Runtime

    var methods: [RPCMethod] {
        let runtime = runtime
        return [
            RPCMethod("sinks.list", "Every sink with its counters.", result: Schema.array(SinksMethods.sinkSchema)) { _ in
                SinksMethods.list(runtime)
            },
            RPCMethod("sinks.add", "Open a sink by URI (file:, http://, rtp://).", params: [.init("uri", Schema.string)],
                      result: SinksMethods.sinkSchema, errors: [-32001, -32004]) { call throws(RPCError) in
                let uri = try call.string("uri")
                let info: SinkInfo
                do throws(SinkError) {
                    info = try runtime.output.addSink(uri, fromClient: true)
                } catch {
                    runtime.logger.warning("sinks", "a client's sinks.add was refused: \(error)")
                    if case .tooMany = error { throw .limit(error.description) }
                    throw .commandFailed(error.description)
                }
                runtime.publish("sinks.changed", ["sinks": SinksMethods.list(runtime)])
                return SinksMethods.describe(info)
            },
            RPCMethod("sinks.remove", "Close and forget a sink.", params: [.init("id", Schema.integer)],
                      result: Schema.boolean, errors: [-32004]) { call throws(RPCError) in
                guard let id = call.optional("id")?.intValue else { throw .invalidParams("\"id\" must be an integer") }
                do throws(SinkError) { try runtime.output.removeSink(Int(id)) } catch { throw .commandFailed(error.description) }
                runtime.publish("sinks.changed", ["sinks": SinksMethods.list(runtime)])
                return true
            },
        ]
    }

    static func list(_ runtime: Runtime) -> JSONValue { .array(runtime.sinks.list.map(describe)) }

    static func describe(_ sink: SinkInfo) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .int(Int64(sink.id)), "uri": .string(sink.uri), "packets": .int(Int64(sink.status.packets)),
            "bytes": .int(Int64(sink.status.bytes)), "errors": .int(Int64(sink.status.errors)),
        ]
        if let error = sink.status.lastError { object["lastError"] = .string(error) }
        if sink.status.failed { object["failed"] = true; object["droppedPackets"] = .int(Int64(sink.status.droppedPackets)) }
        if let clients = sink.status.clients { object["clients"] = .int(Int64(clients)) }
        if let dropped = sink.status.droppedClients { object["droppedClients"] = .int(Int64(dropped)) }
        return .object(object)
    }

    static let sinkSchema = Schema.object([
        "id": Schema.integer, "uri": Schema.string, "packets": Schema.integer, "bytes": Schema.integer, "errors": Schema.integer,
        "lastError": Schema.string, "failed": Schema.boolean, "droppedPackets": Schema.integer,
        "clients": Schema.integer, "droppedClients": Schema.integer,
    ], optional: ["lastError", "failed", "droppedPackets", "clients", "droppedClients"])
}
