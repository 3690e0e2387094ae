import DeckFuzz
import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime

/// Every method `rpc.discover` lists, called with parameters drawn from its own schema and from
/// the edges of every type, against a runtime where Tone plays: each call is answered (a result
/// or a JSON-RPC error), and after each the runtime still answers and its invariants hold.
@Suite struct SchemaFuzzTests {
    @Test(arguments: [false, true])
    func everyMethodTakesTheEdgesOfEveryTypeAndTheRuntimeHolds(zoned: Bool) throws {
        let harness = try StreamingHarness(freewheel: false) {
            $0.session.alwaysActive = false
            // With zones, every zone-scoped method is also swept over the zones rpc.discover names.
            if zoned { $0.zones = [ZoneSettings(id: "front", sharedContexts: [.safety]), ZoneSettings(id: "rear")] }
        }
        try harness.load(Paths.toneBundle)
        if zoned { harness.runtime.zones.place("org.deck.tone", in: harness.runtime.zones.list[1]) }
        try harness.runtime.zones.zone(ofPlugin: "org.deck.tone").focus.play(pluginID: "org.deck.tone", item: "sine-440")
        let dispatcher = harness.runtime.makeDispatcher()
        var late = 0
        let connection = RPCConnection { line in if line.contains(#""id":"#) && !line.contains(#""method":"#) { late += 1 } }
        let document = try JSONValue.parse(try #require(dispatcher.handle(#"{"jsonrpc":"2.0","method":"rpc.discover","id":0}"#, connection: connection)))
        let methods = try #require(document["result"])
        // apps.unload last: unloading Tone first would leave the player methods nothing to reach.
        let everyOther = SchemaFuzzer(document: methods, skip: ["apps.unload"])
        let unload = SchemaFuzzer(document: methods, skip: Set(everyOther.names))
        let lines = everyOther.sweep() + unload.sweep()
        #expect(everyOther.methodCount > 40)
        #expect(lines.count > 1_000)
        var immediate = 0
        for (index, line) in lines.enumerated() {
            if let answer = dispatcher.handle(line, connection: connection) {
                let value = try JSONValue.parse(answer)
                #expect(value["result"] != nil || value["error"]?["code"]?.intValue != nil, "\(line) → \(answer.prefix(300))")
                immediate += 1
            }
            if index % 20 == 0 { _ = harness.runtime.loop.runNoWait() }
            if let broken = SchemaFuzzer.brokenInvariant(of: harness.runtime, dispatcher: dispatcher) {
                Issue.record("after \(line.prefix(300)): \(broken)")
                break
            }
        }
        // Deferred answers (remote commands wait for Tone, or time out) arrive through the connection.
        #expect(turnLoop(harness.runtime.loop, seconds: 10) { immediate + late == lines.count }, "\(lines.count - immediate - late) calls never answered")
    }
}
