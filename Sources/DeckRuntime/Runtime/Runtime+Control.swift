extension Runtime {
    /// Topics the runtime publishes today (now playing, queue and UI come with their subsystems).
    public static let eventTopics = ["apps.changed", "session.changed", "sinks.changed"]

    /// The dispatcher for this runtime's JSON-RPC API: every method, `rpc.discover`, events.
    public func makeDispatcher() -> RPCDispatcher {
        let dispatcher = RPCDispatcher()
        dispatcher.topics = events.topics
        dispatcher.registerBuiltins(title: "Deck", version: DeckVersion.string)
        let object: JSONValue = ["type": "object"]
        let idParam = RPCMethod.Param("id", ["type": "string"], "a plugin id, e.g. org.deck.tone")

        dispatcher.register(RPCMethod("runtime.info", "Version, ABI, plugins, output and sinks at a glance.", result: object) { [unowned self] _ in
            func total(_ counter: (StreamCounters) -> Int) -> JSONValue {
                .int(Int64(plugins.reduce(0) { $0 + counter($1.streamCounters) }))
            }
            return [
                "version": .string(DeckVersion.string),
                "abi": .string("\(PluginABI.major).\(PluginABI.minor)"),
                "apps": .int(Int64(plugins.count)),
                "refused": .int(Int64(loadFailures.count)),
                "output": ["active": .bool(session.isActive), "running": .bool(audio.isRunning),
                           "frames": .int(Int64(audio.stats.frames.load(ordering: .relaxed))),
                           "lateEvents": .int(Int64(audio.stats.lateEvents.load(ordering: .relaxed))),
                           "droppedPackets": .int(Int64(audio.stats.droppedPackets.load(ordering: .relaxed))),
                           "underrunFrames": total { $0.underrunFrames.load(ordering: .relaxed) },
                           "invalidFrames": total { $0.invalidFrames.load(ordering: .relaxed) },
                           "clippedFrames": total { $0.clippedFrames.load(ordering: .relaxed) },
                           "limitedSamples": .int(Int64(audio.stats.limitedSamples.load(ordering: .relaxed))),
                           "latenessMs": ["p50": .double(Double(audio.stats.lateness.quantile(0.5)) / 1e6),
                                          "p99": .double(Double(audio.stats.lateness.quantile(0.99)) / 1e6),
                                          "max": .double(Double(audio.stats.lateness.maximum) / 1e6)]],
                "sinks": .int(Int64(sinks.list.count)),
            ]
        })
        dispatcher.register(RPCMethod("apps.list", "Loaded apps with state and effective entitlements, and refused bundles.",
                                      result: object) { [unowned self] _ in appsDescription })
        dispatcher.register(RPCMethod("apps.load", "Load and activate the bundle at a path.",
                                      params: [.init("path", ["type": "string"], "a NAME.deckplugin folder")],
                                      result: object, errors: [-32004]) { [unowned self] call throws(RPCError) in
            let path = try call.string("path")
            guard let plugin = loadBundle(path, recordFailure: false) else {
                throw .commandFailed(lastLoadFailure?.reasonText ?? "not loaded")
            }
            try? plugin.activate()
            publish("apps.changed", appsDescription)
            return describe(plugin)
        })
        dispatcher.register(RPCMethod("apps.unload", "Deactivate, destroy and forget an app.", params: [idParam],
                                      result: ["type": "boolean"], errors: [-32003]) { [unowned self] call throws(RPCError) in
            let id = try call.string("id")
            guard let plugin = plugin(id: id) else { throw .noSuchApp(id) }
            unload(plugin)
            publish("apps.changed", appsDescription)
            return true
        })
        dispatcher.register(RPCMethod("apps.launch", "Activate an app and ask it to play an item (its default when none).",
                                      params: [idParam, .init("item", ["type": "string"], required: false)],
                                      result: object, errors: [-32000, -32003, -32004]) { [unowned self] call throws(RPCError) in
            let id = try call.string("id")
            guard let plugin = plugin(id: id) else { throw .noSuchApp(id) }
            if plugin.state == .initialized {
                do throws(PluginCallError) { try plugin.activate() } catch { throw .commandFailed(error.message) }
            }
            let item = try call.optionalString("item")
            let outcome: PlayOutcome
            do throws(PluginCallError) {
                outcome = try play(pluginID: id, item: item)
            } catch {
                throw error.status == .notEntitled ? .notEntitled(error.message) : .commandFailed(error.message)
            }
            if case .silent(let reason) = outcome { throw .commandFailed(reason) }
            publish("apps.changed", appsDescription)
            return describe(plugin)
        })
        dispatcher.register(RPCMethod("session.get", "Focus holders, the pending request, streams, activation and counters.",
                                      result: object) { [unowned self] _ in sessionDescription })
        let contexts: JSONValue = ["type": "string", "enum": .array(AudioContext.allCases.map { .string($0.rawValue) })]
        let types: JSONValue = ["type": "string", "enum": .array(FocusRequestType.allCases.map { .string($0.rawValue) })]
        dispatcher.register(RPCMethod(
            "session.request", "Request focus as the integrator (any context), e.g. for a chime the car plays itself.",
            params: [.init("context", contexts), .init("type", types, required: false, "default gainTransientMayDuck"),
                     .init("name", ["type": "string"], required: false, "the integrator's owner name (default rpc)"),
                     .init("acceptsDelayedFocus", ["type": "boolean"], required: false),
                     .init("pausesOnDuck", ["type": "boolean"], required: false)],
            result: ["type": "object", "properties": ["result": ["type": "string", "enum": ["granted", "delayed", "rejected"]],
                                                      "reason": ["type": "string"]]],
            errors: [-32001]) { [unowned self] call throws(RPCError) in
            let contextName = try call.string("context")
            guard let context = AudioContext(rawValue: contextName) else { throw .invalidParams("unknown context \"\(contextName)\"") }
            let typeName = try call.optionalString("type") ?? FocusRequestType.gainTransientMayDuck.rawValue
            guard let type = FocusRequestType(rawValue: typeName) else { throw .invalidParams("unknown type \"\(typeName)\"") }
            let name = try call.optionalString("name") ?? "rpc"
            guard !name.isEmpty, name.utf8.count <= 64 else { throw .invalidParams("\"name\" must be 1 to 64 bytes") }
            let owner = FocusOwner.integrator(name)
            let integrators = Set((session.arbiter.holders.map(\.request) + [session.arbiter.pending].compactMap { $0 })
                .map(\.owner).filter { if case .integrator = $0 { true } else { false } })
            guard integrators.contains(owner) || integrators.count < session.policy.maxIntegratorOwners else {
                throw .limit("\(integrators.count) integrator names hold or await focus (session.maxIntegratorOwners); abandon one first")
            }
            let request = FocusRequest(owner: owner, context: context, type: type,
                                       acceptsDelayedFocus: call.optional("acceptsDelayedFocus")?.boolValue ?? false,
                                       pausesOnDuck: call.optional("pausesOnDuck")?.boolValue ?? false)
            return switch requestFocus(request) {
            case .granted: ["result": "granted"]
            case .delayed(let reason): ["result": "delayed", "reason": .string(reason)]
            case .rejected(let reason): ["result": "rejected", "reason": .string(reason)]
            }
        })
        dispatcher.register(RPCMethod("session.abandon", "Give up the integrator's focus.",
                                      params: [.init("name", ["type": "string"], required: false)],
                                      result: ["type": "boolean"]) { [unowned self] call throws(RPCError) in
            abandonFocus(.integrator(try call.optionalString("name") ?? "rpc"))
            return true
        })
        dispatcher.register(RPCMethod("sinks.list", "Every sink with its counters.", result: ["type": "array"]) { [unowned self] _ in
            sinksDescription
        })
        dispatcher.register(RPCMethod("sinks.add", "Open a sink by URI (file:, http://, rtp://).",
                                      params: [.init("uri", ["type": "string"])], result: object, errors: [-32001, -32004]) { [unowned self] call throws(RPCError) in
            let uri = try call.string("uri")
            let info: SinkInfo
            do throws(SinkError) {
                info = try addSink(uri, fromClient: true)
            } catch {
                logger.warning("sinks", "a client's sinks.add was refused: \(error)")
                if case .tooMany = error { throw .limit(error.description) }
                throw .commandFailed(error.description)
            }
            publish("sinks.changed", ["sinks": sinksDescription])
            return Runtime.describe(info)
        })
        dispatcher.register(RPCMethod("sinks.remove", "Close and forget a sink.", params: [.init("id", ["type": "integer"])],
                                      result: ["type": "boolean"], errors: [-32004]) { [unowned self] call throws(RPCError) in
            guard let id = call.optional("id")?.intValue else { throw .invalidParams("\"id\" must be an integer") }
            do throws(SinkError) { try removeSink(Int(id)) } catch { throw .commandFailed(error.description) }
            publish("sinks.changed", ["sinks": sinksDescription])
            return true
        })
        return dispatcher
    }

    /// One log line of the runtime's state, for SIGUSR1 and the like.
    public var statusLine: String {
        let stats = audio.stats
        return "\(plugins.count) plugin(s), \(loadFailures.count) refused; output \(session.isActive ? "active" : "inactive"), "
            + "\(stats.frames.load(ordering: .relaxed)) frames, \(stats.lateEvents.load(ordering: .relaxed)) late, "
            + "\(stats.droppedPackets.load(ordering: .relaxed)) packets dropped; \(sinks.list.count) sink(s)"
    }

    /// Publishes a change on `topic` with its payload object.
    func publish(_ topic: String, _ payload: JSONValue) {
        guard case .object(let members) = payload else { preconditionFailure("\(topic): a notification's payload is an object") }
        events.publish(topic, members)
    }

    var appsDescription: JSONValue {
        [
            "apps": .array(plugins.map(describe)),
            "refused": .array(loadFailures.map { ["bundle": .string($0.bundle), "reason": .string($0.reasonText)] }),
        ]
    }

    func describe(_ plugin: PluginInstance) -> JSONValue {
        [
            "id": .string(plugin.id), "name": .string(plugin.manifest.name), "version": .string(plugin.manifest.version.description),
            "state": .string(plugin.state.rawValue), "language": .string(plugin.isSwift ? "swift" : "c"),
            "entitlements": .array(plugin.entitlements.sorted().map { .string($0.rawValue) }),
            "bundle": .string(plugin.bundlePath), "streaming": .bool(plugin.streamSlot != nil),
            "underrunFrames": .int(Int64(plugin.streamCounters.underrunFrames.load(ordering: .relaxed))),
            "invalidFrames": .int(Int64(plugin.streamCounters.invalidFrames.load(ordering: .relaxed))),
            "clippedFrames": .int(Int64(plugin.streamCounters.clippedFrames.load(ordering: .relaxed))),
        ]
    }

    var sinksDescription: JSONValue { .array(sinks.list.map(Runtime.describe)) }

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
}
