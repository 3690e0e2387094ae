import DeckRuntime

/// One runtime for every fuzzed RPC input: no plugins, no sinks, clients' file sinks refused, and
/// a loop that never turns, so nothing the methods schedule (an output run) ever starts.
final class FuzzRuntime: @unchecked Sendable {  // Created once, then used only from libFuzzer's single thread.
    static let shared = FuzzRuntime()

    let runtime: Runtime
    let dispatcher: RPCDispatcher
    let schema: SchemaFuzzer

    private init() {
        var configuration = RuntimeConfiguration()
        configuration.logLevel = .error
        // Two zones, so calls naming a zone (drawn from rpc.discover's enum) reach both sessions.
        configuration.zones = [ZoneSettings(id: "front", sharedContexts: [.safety]), ZoneSettings(id: "rear")]
        runtime = try! Runtime(configuration: configuration, logger: Logger(level: .error) { _ in })
        dispatcher = runtime.makeDispatcher()
        let discovered = dispatcher.handle(#"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"#, connection: RPCConnection { _ in })
        schema = SchemaFuzzer(document: (discovered.flatMap { try? JSONValue.parse($0) })?["result"] ?? .null)
    }
}
