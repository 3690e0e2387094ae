import DeckRuntime

/// JSON-RPC calls drawn from each method's own schema (`rpc.discover`) and from the edges of
/// every type: a deterministic sweep for the test suite (each parameter of each method takes each
/// value while the others keep a valid one) and a call chosen by bytes for libFuzzer.
public struct SchemaFuzzer {
    struct Method {
        var name: String
        var params: [(name: String, schema: JSONValue, required: Bool)]
    }

    /// The edges of every type: whatever a parameter declares, it is also sent these.
    public static let edges: [JSONValue] = [
        0, -1, 1, .int(.max), .int(.min), .double(1e308), .double(-1e308), .double(1e19), .double(-1e19), .double(-0.0),
        .double(0.5), .double(1e-300), "", .string(String(repeating: "x", count: 70_000)), .string("\u{202E}\u{1}\u{FFFF}"),
        .null, true, false, [], [:], .array([.array([.array([.array([1])])])]), ["a": ["b": ["c": 1]]],
    ]

    let methods: [Method]

    /// The methods `document` (an OpenRPC document) describes, but `skip`.
    public init(document: JSONValue, skip: Set<String> = []) {
        methods = (document["methods"]?.arrayValue ?? []).compactMap { method in
            guard let name = method["name"]?.stringValue, !skip.contains(name) else { return nil }
            let params = (method["params"]?.arrayValue ?? []).compactMap { param -> (String, JSONValue, Bool)? in
                guard let name = param["name"]?.stringValue, let schema = param["schema"] else { return nil }
                return (name, schema, param["required"]?.boolValue ?? false)
            }
            return Method(name: name, params: params)
        }
    }

    public var methodCount: Int { methods.count }
    public var names: [String] { methods.map(\.name) }

    /// Values valid for `schema` (its enum members, its bounds and a middle, a short string, an
    /// array of one valid element), then every edge.
    static func values(for schema: JSONValue) -> [JSONValue] {
        valid(for: schema) + edges
    }

    static func valid(for schema: JSONValue) -> [JSONValue] {
        if let options = schema["anyOf"]?.arrayValue { return options.flatMap(valid(for:)) }
        if let members = schema["enum"]?.arrayValue { return members }
        switch schema["type"]?.stringValue {
        case "integer":
            let low = schema["minimum"]?.intValue ?? -5, high = schema["maximum"]?.intValue ?? 5
            return [.int(low), .int(high), .int(low / 2 + high / 2)]
        case "number":
            let low = schema["minimum"]?.doubleValue ?? -5, high = schema["maximum"]?.doubleValue ?? 5
            return [.double(low), .double(high), .double(low / 2 + high / 2)]
        case "string": return ["a", "org.deck.tone", "0/1"]
        case "boolean": return [true, false]
        case "array": return [.array(schema["items"].map { valid(for: $0).prefix(1).map { $0 } } ?? [])]
        case "object": return [[:]]
        default: return ["a", 1]
        }
    }

    /// Every call of the sweep, as request lines with ids from 1.
    public func sweep() -> [String] {
        var lines: [String] = []
        for method in methods {
            let base = JSONObject(Dictionary(uniqueKeysWithValues: method.params.map { ($0.name, SchemaFuzzer.valid(for: $0.schema).first ?? .null) }))
            lines.append(SchemaFuzzer.line(method.name, .object(base), id: lines.count + 1))
            for param in method.params {
                for value in SchemaFuzzer.values(for: param.schema) {
                    var params = base
                    params[param.name] = value
                    lines.append(SchemaFuzzer.line(method.name, .object(params), id: lines.count + 1))
                }
            }
            // By position too, and with a parameter it does not have.
            lines.append(SchemaFuzzer.line(method.name, .array(method.params.map { base[$0.name] ?? .null }), id: lines.count + 1))
            lines.append(SchemaFuzzer.line(method.name, ["unknown": .int(.max)], id: lines.count + 1))
        }
        return lines
    }

    /// One call chosen by `bytes`: a method, then for each parameter a value from its candidates
    /// or, past them, a number made of the next eight bytes.
    public func call(from bytes: [UInt8]) -> String? {
        guard !methods.isEmpty, !bytes.isEmpty else { return nil }
        var reader = bytes.makeIterator()
        let method = methods[Int(reader.next()!) % methods.count]
        var params: JSONObject = [:]
        for param in method.params {
            guard let pick = reader.next() else { break }
            let candidates = SchemaFuzzer.values(for: param.schema)
            if Int(pick) < candidates.count * 2 {
                params[param.name] = candidates[Int(pick) % candidates.count]
            } else {
                var bits: UInt64 = 0
                for _ in 0..<8 { bits = bits << 8 | UInt64(reader.next() ?? 0) }
                params[param.name] = pick & 1 == 0 ? .int(Int64(bitPattern: bits)) : .double(Double(bitPattern: bits))
            }
        }
        return SchemaFuzzer.line(method.name, .object(params), id: 1)
    }

    /// Valid JSON that Deck cannot hold, as text (no `JSONValue` carries it): a client may send it.
    public static let unrepresentable = ["18446744073709551616", "-9223372036854775809", "1e400", #""\ud800""#, #""a\u0000b""#]

    /// One call drawn by `random`: a method, each required parameter and about half the optional
    /// ones, each a candidate for its schema or one of `strings` (what earlier answers named), and
    /// now and then one as text Deck cannot hold. Named parameters, or by position one time in ten.
    public func randomCall(id: Int, strings: [String], using random: inout some RandomNumberGenerator) -> (method: String, line: String) {
        let method = methods.randomElement(using: &random)!
        let byPosition = Int.random(in: 0..<10, using: &random) == 0
        var texts: [(name: String, text: String)] = []
        for param in method.params where byPosition || param.required || Bool.random(using: &random) {
            let text: String
            switch Int.random(in: 0..<20, using: &random) {
            case 0: text = SchemaFuzzer.unrepresentable.randomElement(using: &random)!
            case 1...5 where !strings.isEmpty: text = JSONValue.string(strings.randomElement(using: &random)!).encoded()
            default: text = SchemaFuzzer.values(for: param.schema).randomElement(using: &random)!.encoded()
            }
            texts.append((param.name, text))
        }
        let params = byPosition
            ? "[" + texts.map(\.text).joined(separator: ",") + "]"
            : "{" + texts.map { JSONValue.string($0.name).encoded() + ":" + $0.text }.joined(separator: ",") + "}"
        return (method.name, #"{"jsonrpc":"2.0","method":"# + JSONValue.string(method.name).encoded() + #","params":"# + params + #","id":\#(id)}"#)
    }

    /// A request line (a double JSON cannot carry, NaN or an infinity, goes as null).
    static func line(_ method: String, _ params: JSONValue, id: Int) -> String {
        #"{"jsonrpc":"2.0","method":"# + JSONValue.string(method).encoded() + #","params":"# + params.encoded() + #","id":\#(id)}"#
    }

    /// What must hold after any call: the runtime answers `runtime.info`, every volume index is in
    /// its group's range, and the now-playing times are finite and within range. The first broken
    /// invariant, or nil.
    public static func brokenInvariant(of runtime: Runtime, dispatcher: RPCDispatcher) -> String? {
        let probe = RPCConnection { _ in }
        guard let answer = dispatcher.handle(#"{"jsonrpc":"2.0","method":"runtime.info","id":0}"#, connection: probe),
              (try? JSONValue.parse(answer))?["result"] != nil else { return "runtime.info did not answer" }
        for zone in runtime.zones.list {
            for group in zone.focus.session.volume.groups where !(group.lowestIndex...group.maxIndex).contains(group.index) {
                return "volume group \(group.name) of zone \(zone.id) is at \(group.index), outside \(group.lowestIndex)...\(group.maxIndex)"
            }
            let info = zone.player.center.info
            if MediaTime(seconds: info.elapsed(at: runtime.loop.now)) == nil {
                return "now playing's elapsed time in zone \(zone.id) is \(info.elapsed(at: runtime.loop.now))"
            }
            if let duration = info.duration, MediaTime(seconds: duration) == nil { return "now playing's duration in zone \(zone.id) is \(duration)" }
        }
        // An app plays in one zone at a time: it holds focus in no other zone's session but as a shared request.
        for zone in runtime.zones.list {
            for holder in zone.focus.session.arbiter.holders {
                guard case .plugin(let id) = holder.request.owner, runtime.zones.zone(ofPlugin: id) !== zone,
                      !runtime.zones.zone(ofPlugin: id).settings.sharedContexts.contains(holder.request.context) else { continue }
                return "\(id) holds \(holder.request.context.rawValue) focus in zone \(zone.id) but plays in \(runtime.zones.zone(ofPlugin: id).id)"
            }
        }
        return nil
    }
}
