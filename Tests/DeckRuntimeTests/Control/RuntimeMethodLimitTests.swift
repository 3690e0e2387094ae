import DeckTestSupport
import DeckBase
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckControl

/// What one client can make the runtime hold through its methods is bounded too.
@Suite struct RuntimeMethodLimitTests {
    @Test func integratorNamesHoldingFocusAreBounded() throws {
        var configuration = RuntimeConfiguration()
        configuration.session.maxIntegratorOwners = 3
        let runtime = try Runtime(configuration: configuration, logger: LogCapture().logger)
        defer { runtime.shutdown() }
        let dispatcher = runtime.makeDispatcher()
        for name in ["a", "b", "c"] {
            #expect(try dispatcher.answer("session.request", #"{"context":"notification","name":"\#(name)"}"#)["result"]?["result"] == "granted")
        }
        let fourth = try dispatcher.answer("session.request", #"{"context":"notification","name":"d"}"#)
        #expect(fourth["error"]?["code"] == -32001)
        #expect(fourth["error"]?["message"] == "Limit: 3 integrator names hold or await focus (session.maxIntegratorOwners); abandon one first")
        // A holder asking again is not a new name; one that lets go makes room.
        #expect(try dispatcher.answer("session.request", #"{"context":"notification","name":"a"}"#)["result"] != nil)
        _ = try dispatcher.answer("session.abandon", #"{"name":"b"}"#)
        #expect(try dispatcher.answer("session.request", #"{"context":"notification","name":"d"}"#)["result"] != nil)
        let long = try dispatcher.answer("session.request", #"{"context":"notification","name":"\#(String(repeating: "n", count: 65))"}"#)
        #expect(long["error"]?["code"] == -32602)
    }

    @Test func everyStringParameterHasABoundTheDispatcherHoldsCallsTo() throws {
        let runtime = try Runtime(configuration: RuntimeConfiguration(), logger: LogCapture().logger)
        defer { runtime.shutdown() }
        let methods = try #require(try runtime.makeDispatcher().answer("rpc.discover")["result"]?["methods"]?.arrayValue)
        var checked = 0
        for method in methods {
            for param in method["params"]?.arrayValue ?? [] {
                let schema = try #require(param["schema"])
                let name = "\(method["name"]?.stringValue ?? "?").\(param["name"]?.stringValue ?? "?")"
                if schema.encoded().contains(#""type":"string""#), schema["type"] != "array" {
                    #expect(Schema.maxLength(of: schema) != nil, "\(name) takes a string of any length")
                    checked += 1
                } else if schema["type"] == "array", schema["items"]?["type"] == "string" {
                    #expect(schema["items"]?["enum"] != nil, "\(name) takes strings of any length")
                }
            }
        }
        #expect(checked > 50)
    }

    @Test func aLongStringIsRefusedInAShortAnswerAndNeverReachesAnApp() throws {
        let log = LogCapture()
        let runtime = try Runtime(configuration: RuntimeConfiguration(), logger: log.logger)
        defer { runtime.shutdown() }
        let dispatcher = runtime.makeDispatcher()
        for (method, params) in [("apps.launch", #"{"id":"org.deck.tone","item":"ITEM"}"#), ("apps.launch", #"{"id":"ITEM"}"#),
                                 ("sinks.add", #"{"uri":"ITEM"}"#), ("session.abandon", #"{"name":"ITEM"}"#),
                                 ("volume.mute", #"{"group":"ITEM","muted":true}"#), ("ui.get", #"{"app":"ITEM"}"#)] {
            let text = String(repeating: "x", count: 500_000)
            let answer = try dispatcher.answer(method, params.replacingOccurrences(of: "ITEM", with: text))
            #expect(answer["error"]?["code"] == -32602, "\(method)")
            #expect(answer.encoded().utf8.count < 200, "\(method)")
        }
        #expect(log.all.allSatisfy { $0.message.utf8.count <= PrintableText.maxLogBytes + 40 })
    }

    @Test func sinksAreBounded() throws {
        var configuration = RuntimeConfiguration()
        configuration.maxSinks = 2
        let runtime = try Runtime(configuration: configuration, logger: LogCapture().logger)
        defer { runtime.shutdown() }
        let dispatcher = runtime.makeDispatcher()
        for _ in 0..<2 { #expect(try dispatcher.answer("sinks.add", #"{"uri":"http://127.0.0.1:0/s.opus"}"#)["result"] != nil) }
        let third = try dispatcher.answer("sinks.add", #"{"uri":"http://127.0.0.1:0/s.opus"}"#)
        #expect(third["error"]?["code"] == -32001)
        #expect(third["error"]?["message"] == "Limit: 2 sinks are open already (maxSinks); remove one first")
        #expect(runtime.sinks.list.count == 2)
    }

    @Test func aTransientRequestThatAcceptsDelayIsGrantedOrRejectedNeverAnError() throws {
        let runtime = try Runtime(configuration: RuntimeConfiguration(), logger: LogCapture().logger)
        defer { runtime.shutdown() }
        let answer = try runtime.makeDispatcher().answer("session.request",
                              #"{"context":"navigation","type":"gainTransientMayDuck","acceptsDelayedFocus":true}"#)
        #expect(answer["error"] == nil)
        #expect(answer["result"]?["result"] == "granted")
        #expect(runtime.session.arbiter.holders.count == 1)
    }
}
