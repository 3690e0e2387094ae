import DeckBase
import DeckRuntime

/// One parser that reads what outsiders send or write, fed arbitrary bytes: by libFuzzer
/// (`make fuzz`) and, over the saved corpus, by the test suite. A target must never crash, hang or
/// leak whatever it is given; errors are the expected outcome.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// JSON-RPC framing (newline-delimited, bounded) and the dispatcher with the runtime's methods.
    case rpc
    /// A bundle's manifest and the integrator's entitlement policy.
    case manifest
    /// deckd's config file.
    case config
    /// The HTTP sink's request head.
    case httpHead = "http-head"

    public func run(_ bytes: [UInt8]) {
        switch self {
        case .rpc: FuzzTarget.rpc(bytes)
        case .manifest:
            guard let json = try? JSONValue.parse(bytes, limits: JSONLimits(maxBytes: 64 * 1024, maxDepth: 8)) else { return }
            _ = try? PluginManifest(json: json)
            _ = try? EntitlementPolicy(json: json)
        case .config:
            guard let json = try? JSONValue.parse(bytes) else { return }
            var configuration = RuntimeConfiguration()
            _ = try? configuration.apply(json, from: "/nonexistent/fuzz/deck.json")
        case .httpHead:
            guard let length = HTTPRequestHead.headLength(in: bytes) else { return }
            _ = HTTPRequestHead.parse(bytes[..<length])
        }
    }

    /// Feeds the bytes in two pieces, split where the first byte says, as reads would deliver them.
    private static func rpc(_ bytes: [UInt8]) {
        let runtime = FuzzRuntime.shared
        var framer = LineFramer(maxBytes: runtime.dispatcher.limits.maxMessageBytes)
        let connection = RPCConnection { _ in }
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % bytes.count
        for piece in [Array(bytes[..<split]), Array(bytes[split...])] {
            framer.feed(piece) { piece in
                if case .line(let line) = piece { _ = runtime.dispatcher.handle(line, connection: connection) }
                return true
            }
        }
    }
}
