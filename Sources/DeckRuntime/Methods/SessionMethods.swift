import DeckBase
import DeckSession
import DeckControl

/// `session.*`: who holds audio focus, and the integrator's own focus requests. Loop-thread-confined.
struct SessionMethods {
    let zones: ZoneSet

    var methods: [RPCMethod] {
        let zones = zones
        let contexts = Schema.oneOf(AudioContext.allCases.map(\.rawValue))
        let types = Schema.oneOf(FocusRequestType.allCases.map(\.rawValue))
        return [
            RPCMethod("session.get", "Focus holders, the pending request, streams, activation and counters.", params: [zones.param],
                      result: SessionMethods.stateSchema) { call throws(RPCError) in SessionMethods.state(try zones.zone(of: call).focus) },
            RPCMethod("session.request", "Request focus as the integrator (any context), e.g. for a chime the car plays itself.",
                      params: [.init("context", contexts), .init("type", types, required: false, "default gainTransientMayDuck"),
                               .init("name", SessionMethods.ownerNameSchema, required: false, "the integrator's owner name (default: the libdeck client's name, else rpc)"),
                               .init("acceptsDelayedFocus", Schema.boolean, required: false),
                               .init("pausesOnDuck", Schema.boolean, required: false), zones.param],
                      result: Schema.object(["result": Schema.oneOf(["granted", "delayed", "rejected"]), "reason": Schema.string],
                                            optional: ["reason"]),
                      errors: [-32001]) { call throws(RPCError) in
                try SessionMethods.request(call, zones.zone(of: call).focus)
            },
            RPCMethod("session.abandon", "Give up the integrator's focus (held or awaited) under this name.",
                      params: [.init("name", SessionMethods.ownerNameSchema, required: false), zones.param],
                      result: Schema.boolean, errors: [-32004]) { call throws(RPCError) in
                let focus = try zones.zone(of: call).focus
                let name = try call.optionalString("name") ?? call.connection.clientName ?? "rpc"
                let owner = FocusOwner.integrator(name)
                guard focus.session.arbiter.holdsOrAwaits(owner) else {
                    throw .commandFailed("\(owner) holds no focus and awaits none")
                }
                call.connection.forget("focus:\(focus.zone):\(name)")
                focus.abandonFocus(owner)
                return true
            },
            RPCMethod("session.configure", "Change duck level, ramps, idle timeout and the navigation-during-call rule now; "
                      + "validated like the config's session section. Returns the settings in force.",
                      params: SessionMethods.settingKeys.map { .init($0.key, $0.schema, required: false) } + [zones.param],
                      result: SessionMethods.settingsSchema) { call throws(RPCError) in
                let focus = try zones.zone(of: call).focus
                var changes: JSONObject = [:]
                for (key, _) in SessionMethods.settingKeys { if let value = call.optional(key) { changes[key] = value } }
                var policy = focus.session.policy
                do throws(SessionConfigurationError) { try policy.apply(.object(changes)) } catch { throw .invalidParams(error.description) }
                focus.reconfigure(policy)
                return SessionMethods.settings(policy)
            },
        ]
    }

    /// What `session.configure` may change, with the schema of each.
    private static let settingKeys: [(key: String, schema: JSONValue)] = [
        ("duckDb", Schema.number), ("duckRampMs", Schema.number), ("restoreRampMs", Schema.number),
        ("idleTimeoutMs", Schema.integer), ("starvationMs", Schema.integer), ("navigationDuringCall", Schema.oneOf(["play", "reject"])),
    ]

    static func settings(_ policy: SessionPolicy) -> JSONValue {
        [
            "duckDb": .double(policy.duckDecibels), "duckRampMs": .double(policy.duckRampMilliseconds),
            "restoreRampMs": .double(policy.restoreRampMilliseconds),
            "idleTimeoutMs": .int(Int64(policy.idleTimeoutMilliseconds)), "starvationMs": .int(Int64(policy.starvationMilliseconds)),
            "navigationDuringCall": .string(policy.rejectsNavigationDuringCall ? "reject" : "play"),
        ]
    }

    /// An integrator's owner name: at most 64, like a libdeck client's name.
    static let ownerNameSchema = Schema.string(maxLength: 64)

    static let settingsSchema = Schema.object(JSONObject(Dictionary(uniqueKeysWithValues: settingKeys.map { ($0.key, $0.schema) })))

    private static func request(_ call: RPCCall, _ focus: FocusCoordinator) throws(RPCError) -> JSONValue {
        let contextName = try call.string("context")
        guard let context = AudioContext(rawValue: contextName) else { throw .invalidParams("unknown context \"\(contextName)\"") }
        let typeName = try call.optionalString("type") ?? FocusRequestType.gainTransientMayDuck.rawValue
        guard let type = FocusRequestType(rawValue: typeName) else { throw .invalidParams("unknown type \"\(typeName)\"") }
        let name = try call.optionalString("name") ?? call.connection.clientName ?? "rpc"
        guard !name.isEmpty, name.utf8.count <= 64 else { throw .invalidParams("\"name\" must be 1 to 64 bytes") }
        let owner = FocusOwner.integrator(name)
        let request = FocusRequest(owner: owner, context: context, type: type,
                                   acceptsDelayedFocus: try call.bool("acceptsDelayedFocus", otherwise: false),
                                   pausesOnDuck: try call.bool("pausesOnDuck", otherwise: false))
        let result: FocusResult
        do { result = try focus.requestIntegratorFocus(request) } catch { throw .limit(error.description) }
        // Focus requested over a connection ends with it, as AAOS abandons a dead client's focus:
        // a crashed HMI must not keep the music paused.
        if case .rejected = result {} else {
            call.connection.onClose("focus:\(focus.zone):\(name)") { [unowned focus] in
                guard focus.session.arbiter.holdsOrAwaits(owner) else { return }
                focus.logger.info("session", "\(owner): its client went away; abandoning its focus")
                focus.abandonFocus(owner)
            }
        }
        return switch result {
        case .granted: ["result": "granted"]
        case .delayed(let reason): ["result": "delayed", "reason": .string(reason)]
        case .rejected(let reason): ["result": "rejected", "reason": .string(reason)]
        }
    }

    /// What `session.get` and `session.changed` carry: holders, the pending request, streams,
    /// activation and counters. Members in key order, as the answer is written: nothing to sort.
    static func state(_ focus: FocusCoordinator) -> JSONValue {
        let session = focus.session
        func describe(_ request: FocusRequest) -> JSONObject {
            JSONObject(inKeyOrder: [.init("acceptsDelayedFocus", .bool(request.acceptsDelayedFocus)),
                                    .init("context", .string(request.context.rawValue)), .init("owner", .string(request.owner.description)),
                                    .init("pausesOnDuck", .bool(request.pausesOnDuck)), .init("type", .string(request.type.rawValue))])
        }
        let holders: [JSONValue] = session.arbiter.holders.map { holder in
            var entry = describe(holder.request)
            entry["duckedBy"] = .array(holder.duckers.sorted().map { .string($0.description) })
            entry["gain"] = .double(Double(session.targetGain(holder.request.owner)))
            entry["pausedBy"] = .array(holder.pausedBy.sorted().map { .string($0.description) })
            entry["state"] = .string(holder.state.rawValue)
            return .object(entry)
        }
        let counters = session.counters
        return .object(JSONObject(inKeyOrder: [
            .init("active", .bool(session.isActive)),
            .init("counters", .object(JSONObject(inKeyOrder: [
                .init("activations", .int(Int64(counters.activations))),
                .init("deactivations", .int(Int64(counters.deactivations))),
                .init("delayed", .int(Int64(counters.delayed))),
                .init("granted", .int(Int64(counters.granted))),
                .init("rejected", .int(Int64(counters.rejected))),
                .init("starvationReports", .int(Int64(focus.starvationReports))),
            ]))),
            .init("holders", .array(holders)),
            .init("pending", session.arbiter.pending.map { .object(describe($0)) } ?? .null),
            .init("streams", .array(session.streams.sorted().map { .string($0.description) })),
        ]))
    }

    private static let requestSchema: JSONObject = [
        "owner": Schema.string, "context": Schema.oneOf(AudioContext.allCases.map(\.rawValue)),
        "type": Schema.oneOf(FocusRequestType.allCases.map(\.rawValue)), "acceptsDelayedFocus": Schema.boolean,
        "pausesOnDuck": Schema.boolean,
    ]

    static let stateSchema = Schema.object([
        "active": Schema.boolean,
        "holders": Schema.array(Schema.object(requestSchema.merging([
            "state": Schema.oneOf(["playing", "ducked", "paused"]), "gain": Schema.number,
            "pausedBy": Schema.array(Schema.string), "duckedBy": Schema.array(Schema.string),
        ]))),
        "pending": Schema.nullable(Schema.object(requestSchema)),
        "streams": Schema.array(Schema.string),
        "counters": Schema.object(["granted": Schema.integer, "delayed": Schema.integer, "rejected": Schema.integer,
                                   "activations": Schema.integer, "deactivations": Schema.integer,
                                   "starvationReports": Schema.integer]),
    ])
}
