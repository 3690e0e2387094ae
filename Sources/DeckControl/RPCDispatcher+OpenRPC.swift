import DeckBase

extension RPCDispatcher {
    /// An OpenRPC 1.2 document of every registered method, made from the same table the dispatcher
    /// calls, so the description cannot drift from the behaviour.
    public func openRPCDocument(title: String, version: String) -> JSONValue {
        let errorObjects = Dictionary(uniqueKeysWithValues: RPCError.serverErrors.map { ($0.code, $0) })
        let described: [JSONValue] = methods.map { method in
            var entry: JSONObject = [
                "name": .string(method.name),
                "summary": .string(method.summary),
                "paramStructure": "either",
                "params": .array(method.params.map { param in
                    var object: JSONObject = ["name": .string(param.name), "required": .bool(param.required), "schema": param.schema]
                    if !param.summary.isEmpty { object["summary"] = .string(param.summary) }
                    return .object(object)
                }),
                "result": ["name": .string("\(method.name).result"), "schema": method.result],
            ]
            let errors: [JSONValue] = method.errors.compactMap { code in
                errorObjects[code].map { ["code": .int(Int64($0.code)), "message": .string($0.name), "data": .string($0.meaning)] }
            }
            if !errors.isEmpty { entry["errors"] = .array(errors) }
            return .object(entry)
        }
        return [
            "openrpc": "1.2.6",
            "info": ["title": .string(title), "version": .string(version),
                     "description": .string("Notifications carry the topic as method: \(topics.joined(separator: ", ")).")],
            "methods": .array(described),
        ]
    }

    /// Registers `rpc.discover`, `auth.login` and `events.subscribe` / `events.unsubscribe`, which
    /// every server has.
    public func registerBuiltins(title: String, version: String) {
        register(RPCMethod("auth.login", "Log a TCP connection in with the token (local socket connections need not).",
                           params: [.init("token", Schema.string(maxLength: Schema.pathMax))], result: ["type": "boolean"], errors: [-32005],
                           open: true) { call throws(RPCError) in
            let given = try call.string("token")
            guard let token = call.connection.token else {
                throw .invalidParams("this connection needs no login (only TCP clients log in); the token was not checked")
            }
            // Compare every byte whatever the mismatch, so timing says nothing about the token.
            let a = Array(given.utf8), b = Array(token.utf8)
            var difference = a.count ^ b.count
            for index in 0..<max(a.count, b.count) {
                difference |= Int((index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0))
            }
            guard difference == 0 else { throw RPCError(code: -32005, message: "Unauthorized: wrong token") }
            call.connection.authenticated = true
            return true
        })
        register(RPCMethod("rpc.discover", "This API as an OpenRPC document.",
                           result: ["type": "object", "required": ["openrpc", "info", "methods"]]) { [unowned self] _ in
            if let discovery { return discovery }
            let document = openRPCDocument(title: title, version: version)
            discovery = document
            return document
        })
        let topicsSchema: JSONValue = ["type": "array", "items": ["type": "string", "enum": .array(topics.map { .string($0) })]]
        register(RPCMethod("events.subscribe", "Receive notifications for these topics on this connection.",
                           params: [.init("topics", topicsSchema)], result: ["type": "array", "items": ["type": "string"]]) { [unowned self] call throws(RPCError) in
            let wanted = try RPCDispatcher.topicList(call)
            if let unknown = wanted.first(where: { !topics.contains($0) }) {
                throw .invalidParams("unknown topic \"\(PrintableText.excerpt(unknown))\"; known: \(topics.joined(separator: ", "))")
            }
            call.connection.topics.formUnion(wanted)
            return .array(call.connection.topics.sorted().map { .string($0) })
        })
        register(RPCMethod("events.unsubscribe", "Stop notifications for these topics on this connection.",
                           params: [.init("topics", topicsSchema)], result: ["type": "array", "items": ["type": "string"]]) { call throws(RPCError) in
            call.connection.topics.subtract(try RPCDispatcher.topicList(call))
            return .array(call.connection.topics.sorted().map { .string($0) })
        })
    }

    private static func topicList(_ call: RPCCall) throws(RPCError) -> [String] {
        guard let list = call.optional("topics")?.arrayValue, let topics = Optional(list.compactMap(\.stringValue)),
              topics.count == list.count else { throw .invalidParams("\"topics\" must be an array of strings") }
        return topics
    }
}
