import DeckBase
import Testing
@testable import DeckControl

/// The JSON-RPC 2.0 specification's examples (section 7), as a transcript against the dispatcher
/// with the spec's example methods registered.
@Suite struct RPCDispatcherTests {
    func specDispatcher() -> RPCDispatcher {
        let dispatcher = RPCDispatcher()
        func numbers(_ call: RPCCall) -> [Int64] { call.params.positional.compactMap(\.intValue) }
        dispatcher.register(RPCMethod("subtract", "", params: [.init("minuend", ["type": "integer"]), .init("subtrahend", ["type": "integer"])]) { call throws(RPCError) in
            guard let a = call.optional("minuend")?.intValue, let b = call.optional("subtrahend")?.intValue else { throw .invalidParams("numbers") }
            return .int(a - b)
        })
        dispatcher.register(RPCMethod("sum", "", params: (0..<3).map { .init("n\($0)", ["type": "integer"], required: false) }) { call in
            .int(numbers(call).reduce(0, +))
        })
        dispatcher.register(RPCMethod("update", "", params: (0..<5).map { .init("p\($0)", ["type": "integer"], required: false) }) { _ in .null })
        dispatcher.register(RPCMethod("notify_hello", "", params: [.init("n", ["type": "integer"], required: false)]) { _ in .null })
        dispatcher.register(RPCMethod("notify_sum", "", params: (0..<3).map { .init("n\($0)", ["type": "integer"], required: false) }) { _ in .null })
        dispatcher.register(RPCMethod("get_data", "") { _ in ["hello", 5] })
        return dispatcher
    }

    /// Sends `request`; compares the response as JSON (member order does not matter).
    func exchange(_ request: String, _ expected: String?) throws {
        let connection = RPCConnection { _ in }
        let response = specDispatcher().handle(request, connection: connection)
        guard let expected else {
            #expect(response == nil, "expected no response to \(request)")
            return
        }
        let got = try JSONValue.parse(try #require(response))
        var want = try JSONValue.parse(expected)
        // The spec leaves error messages to the server: compare codes and ids only.
        func strip(_ value: JSONValue) -> JSONValue {
            switch value {
            case .array(let items): return .array(items.map(strip))
            case .object(var members):
                if case .object(var error)? = members["error"] { error["message"] = nil; members["error"] = .object(error) }
                return .object(members)
            default: return value
            }
        }
        want = strip(want)
        #expect(strip(got) == want, "\(request) → \(response ?? "nil")")
    }

    @Test func positionalParameters() throws {
        try exchange(#"{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}"#, #"{"jsonrpc": "2.0", "result": 19, "id": 1}"#)
        try exchange(#"{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}"#, #"{"jsonrpc": "2.0", "result": -19, "id": 2}"#)
    }

    @Test func namedParameters() throws {
        try exchange(#"{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}"#,
                     #"{"jsonrpc": "2.0", "result": 19, "id": 3}"#)
        try exchange(#"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}"#,
                     #"{"jsonrpc": "2.0", "result": 19, "id": 4}"#)
    }

    @Test func notificationsAreNeverAnswered() throws {
        try exchange(#"{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}"#, nil)
        try exchange(#"{"jsonrpc": "2.0", "method": "foobar"}"#, nil)
    }

    @Test func theStandardErrors() throws {
        try exchange(#"{"jsonrpc": "2.0", "method": "foobar", "id": "1"}"#,
                     #"{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}"#)
        try exchange(#"{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]"#,
                     #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#)
        try exchange(#"{"jsonrpc": "2.0", "method": 1, "params": "bar"}"#,
                     #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#)
        try exchange(#"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 1}, "id": 9}"#,
                     #"{"jsonrpc": "2.0", "error": {"code": -32602, "message": "Invalid params"}, "id": 9}"#)
    }

    @Test func batches() throws {
        try exchange(#"[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},{"jsonrpc": "2.0", "method""#,
                     #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#)
        try exchange("[]", #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#)
        try exchange("[1]", #"[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]"#)
        try exchange("[1,2,3]", """
            [{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
             {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
             {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]
            """)
        try exchange("""
            [{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
             {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
             {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
             {"foo": "boo"},
             {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
             {"jsonrpc": "2.0", "method": "get_data", "id": "9"}]
            """, """
            [{"jsonrpc": "2.0", "result": 7, "id": "1"},
             {"jsonrpc": "2.0", "result": 19, "id": "2"},
             {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
             {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},
             {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}]
            """)
        try exchange(#"[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]"#, nil)
    }

    @Test(arguments: [#""abc""#, "1.5", "-7", "null"])
    func idsOfEveryAllowedTypeAreEchoedExactly(id: String) throws {
        try exchange(#"{"jsonrpc": "2.0", "method": "get_data", "id": \#(id)}"#, #"{"jsonrpc": "2.0", "result": ["hello", 5], "id": \#(id)}"#)
    }

    @Test func anObjectIdIsAnInvalidRequest() throws {
        try exchange(#"{"jsonrpc": "2.0", "method": "get_data", "id": {}}"#,
                     #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#)
    }

    /// A number beyond 64 bits or a double, or a string with an escaped NUL or lone surrogate, is
    /// valid JSON that Deck cannot hold: not a parse error with a null id (a client waiting for
    /// its id would wait for ever), but its request refused with its id, unrun, while the rest of
    /// a batch runs.
    @Test func aValueDeckCannotHoldRefusesItsRequestWithItsIdAndNothingElse() throws {
        try exchange(#"{"jsonrpc": "2.0", "method": "subtract", "params": [9223372036854775808, 1], "id": 1}"#,
                     #"{"jsonrpc": "2.0", "error": {"code": -32602, "message": "Invalid params"}, "id": 1}"#)
        try exchange(#"{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": -1e400, "subtrahend": 1}, "id": "a"}"#,
                     #"{"jsonrpc": "2.0", "error": {"code": -32602, "message": "Invalid params"}, "id": "a"}"#)
        try exchange(#"{"jsonrpc": "2.0", "method": "get_data", "id": 18446744073709551616}"#,
                     #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#)
        try exchange(#"{"jsonrpc": "2.0", "method": "get_data", "extra": [1e999], "id": 2}"#,
                     #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": 2}"#)
        try exchange(#"{"jsonrpc": "2.0", "method": "get_data", "params": {"\ud800": 1}, "id": 5}"#,
                     #"{"jsonrpc": "2.0", "error": {"code": -32602, "message": "Invalid params"}, "id": 5}"#)
        try exchange(#"{"jsonrpc": "2.0", "method": "get_data", "id": "\udfff"}"#,
                     #"{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}"#)
        try exchange(#"{"jsonrpc": "2.0", "method": "notify_hello", "params": [1e999]}"#, nil)
        try exchange(#"[{"jsonrpc": "2.0", "method": "sum", "params": [1, 2], "id": 1}, {"jsonrpc": "2.0", "method": "sum", "params": [1e999], "id": 2},"#
                     + #" {"jsonrpc": "2.0", "method": "get_data", "params": ["a\u0000"], "id": 3}]"#, """
            [{"jsonrpc": "2.0", "result": 3, "id": 1},
             {"jsonrpc": "2.0", "error": {"code": -32602, "message": "Invalid params"}, "id": 2},
             {"jsonrpc": "2.0", "error": {"code": -32602, "message": "Invalid params"}, "id": 3}]
            """)
        // A syntax error after such a number is still a parse error.
        try exchange(#"{"jsonrpc": "2.0", "method": "sum", "params": [1e999], "id": 3"#,
                     #"{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}"#)
        let connection = RPCConnection { _ in }
        let answer = try JSONValue.parse(try #require(specDispatcher().handle(#"{"jsonrpc":"2.0","method":"sum","params":[99999999999999999999],"id":4}"#, connection: connection)))
        #expect(answer["error"]?["message"]?.stringValue
            == "Invalid params: line 1, column 43: integer out of range near '9' (Deck holds integers in 64 bits, reals in a double, and strings without \\u0000 or lone surrogates)")
    }

    @Test func oversizedAndTooDeepMessagesAreRefusedAsLimits() throws {
        let dispatcher = specDispatcher()
        dispatcher.limits.maxMessageBytes = 100
        dispatcher.limits.maxDepth = 4
        let connection = RPCConnection { _ in }
        let big = try JSONValue.parse(try #require(dispatcher.handle(String(repeating: " ", count: 200) + "{}", connection: connection)))
        #expect(big["error"]?["code"] == -32001)
        let deep = try JSONValue.parse(try #require(dispatcher.handle("[[[[[1]]]]]", connection: connection)))
        #expect(deep["error"]?["code"] == -32001)
        let bytes: [UInt8] = [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]  // invalid UTF-8 in a key
        #expect(try JSONValue.parse(try #require(dispatcher.handle(bytes, connection: connection)))["error"]?["code"] == -32700)
    }

    @Test func aMissingNamedParameterIsReportedAsMissingAndAnAbsentOptionalOneIsNil() throws {
        let dispatcher = specDispatcher()
        var seen: [JSONValue?] = []
        dispatcher.register(RPCMethod("needs", "x required, y optional",
                                      params: [.init("x", ["type": "string"]), .init("y", ["type": "string"], required: false)]) { call in
            seen.append(call.optional("y"))
            return true
        })
        let connection = RPCConnection { _ in }
        let missing = try JSONValue.parse(try #require(dispatcher.handle(#"{"jsonrpc":"2.0","method":"needs","params":{"y":"b"},"id":1}"#, connection: connection)))
        #expect(missing["error"]?["message"] == "Invalid params: missing \"x\"")
        _ = dispatcher.handle(#"{"jsonrpc":"2.0","method":"needs","params":{"x":"a"},"id":2}"#, connection: connection)
        _ = dispatcher.handle(#"{"jsonrpc":"2.0","method":"needs","params":{"x":"a","y":null},"id":3}"#, connection: connection)
        #expect(seen == [nil, .null])  // absent is nil; an explicit null is null
    }

    @Test func aStringOverItsDeclaredLengthIsRefusedBeforeTheMethodRunsAndNotQuotedBack() throws {
        let dispatcher = RPCDispatcher()
        var seen: [String] = []
        dispatcher.register(RPCMethod("name", "", params: [.init("text", Schema.string(maxLength: 4)),
                                                          .init("zone", Schema.nullable(Schema.oneOf(["front", "rear"])), required: false)]) { call throws(RPCError) in
            seen.append(try call.string("text"))
            return true
        })
        let connection = RPCConnection { _ in }
        func answer(_ params: String) throws -> JSONValue {
            try JSONValue.parse(try #require(dispatcher.handle(#"{"jsonrpc":"2.0","method":"name","params":\#(params),"id":1}"#, connection: connection)))
        }
        // Four characters pass whatever their bytes; the schema's bound is characters, as JSON Schema counts.
        #expect(try answer(#"{"text":"abcd"}"#)["result"] == true)
        #expect(try answer(#"{"text":"éééé"}"#)["result"] == true)
        #expect(try answer(#"["🎵🎵🎵🎵"]"#)["result"] == true)
        let long = try answer(#"{"text":"\#(String(repeating: "x", count: 100_000))"}"#)
        #expect(long["error"]?["code"] == -32602)
        #expect(long["error"]?["message"] == "Invalid params: \"text\" has 100000 characters; it takes at most 4")
        // An enum's bound is its longest member, looked up through a nullable's anyOf.
        #expect(try answer(#"{"text":"a","zone":"front-seats"}"#)["error"]?["message"]
                == "Invalid params: \"zone\" has 11 characters; it takes at most 5")
        #expect(seen == ["abcd", "éééé", "🎵🎵🎵🎵"])
        #expect(Schema.maxLength(of: Schema.string) == nil && Schema.maxLength(of: Schema.integer) == nil)
    }

    @Test func aLongMethodNameOrParameterNameIsQuotedByItsStart() throws {
        let dispatcher = specDispatcher()
        dispatcher.registerBuiltins(title: "spec", version: "1")
        let connection = RPCConnection { _ in }
        let long = String(repeating: "m", count: 500_000)
        for request in [#"{"jsonrpc":"2.0","method":"\#(long)","id":1}"#, #"{"jsonrpc":"2.0","method":"subtract","params":{"\#(long)":1},"id":1}"#,
                        #"{"jsonrpc":"2.0","method":"events.subscribe","params":{"topics":["\#(long)"]},"id":1}"#] {
            let answer = try #require(dispatcher.handle(request, connection: connection))
            #expect(answer.utf8.count < 300)
            #expect(answer.contains(String(repeating: "m", count: 100) + "… (500000 bytes)"))
        }
    }

    @Test func aBatchOverTheLimitIsRefusedWholeBeforeAnyMemberRuns() throws {
        let dispatcher = specDispatcher()
        var calls = 0
        dispatcher.register(RPCMethod("count", "counts") { _ in calls += 1; return true })
        dispatcher.limits.maxBatch = 3
        let connection = RPCConnection { _ in }
        let member = #"{"jsonrpc":"2.0","method":"count","id":1}"#
        let answer = try JSONValue.parse(try #require(dispatcher.handle("[" + Array(repeating: member, count: 4).joined(separator: ",") + "]", connection: connection)))
        #expect(answer["error"]?["code"] == -32001)
        #expect(answer["error"]?["message"] == "Limit: a batch of 4 requests is over the limit of 3 (control.maxBatch)")
        #expect(calls == 0)
        let ok = try JSONValue.parse(try #require(dispatcher.handle("[" + Array(repeating: member, count: 3).joined(separator: ",") + "]", connection: connection)))
        #expect(ok.arrayValue?.count == 3)
        #expect(calls == 3)
    }

    @Test func aBatchAnswerStopsGrowingAtTheResponseLimit() throws {
        let dispatcher = specDispatcher()
        var calls = 0
        let kilobyte = JSONValue.string(String(repeating: "x", count: 1_000))
        dispatcher.register(RPCMethod("big", "1 kB") { _ in calls += 1; return kilobyte })
        dispatcher.limits.maxResponseBytes = 65_536
        let connection = RPCConnection { _ in }
        let batch = "[" + (1...100).map { #"{"jsonrpc":"2.0","method":"big","id":\#($0)}"# }.joined(separator: ",") + "]"
        let text = try #require(dispatcher.handle(batch, connection: connection))
        let answers = try #require(try JSONValue.parse(text).arrayValue)
        #expect(answers.count == 100)  // every request is answered, in order
        #expect(answers.map { $0["id"] } == (1...100).map { JSONValue.int(Int64($0)) })
        #expect(calls < 70)  // members past the limit did not run
        #expect(answers.last?["error"]?["code"] == -32001)
        #expect(text.utf8.count < 65_536 + 2_000 + 100 * 200)
    }

    @Test func theOpenRPCDocumentComesFromTheMethodTable() throws {
        let dispatcher = specDispatcher()
        dispatcher.topics = ["apps.changed"]
        dispatcher.registerBuiltins(title: "Deck", version: "0.1.0")
        let document = dispatcher.openRPCDocument(title: "Deck", version: "0.1.0")
        #expect(document["openrpc"] == "1.2.6")
        let names = document["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == dispatcher.methods.map(\.name))
        let subtract = document["methods"]?.arrayValue?.first { $0["name"] == "subtract" }
        #expect(subtract?["params"]?.arrayValue?.map { $0["name"] } == ["minuend", "subtrahend"])
        let connection = RPCConnection { _ in }
        let discovered = try JSONValue.parse(try #require(dispatcher.handle(#"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"#, connection: connection)))
        #expect(discovered["result"] == document)
    }

    @Test func theDiscoveredDocumentFollowsEveryRegistrationAndTopicChange() throws {
        let dispatcher = specDispatcher()
        dispatcher.registerBuiltins(title: "Deck", version: "0.1.0")
        let connection = RPCConnection { _ in }
        func discover() throws -> JSONValue {
            let answer = try #require(dispatcher.handle(#"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"#, connection: connection))
            return try #require(try JSONValue.parse(answer)["result"])
        }
        let first = try discover()
        #expect(try discover() == first)
        dispatcher.register(RPCMethod("late", "Registered after a client asked.") { _ in .null })
        let second = try discover()
        #expect(second["methods"]?.arrayValue?.last?["name"] == "late")
        #expect(second == dispatcher.openRPCDocument(title: "Deck", version: "0.1.0"))
        dispatcher.topics = ["apps.changed", "late.changed"]
        let third = try discover()
        #expect(third["info"]?["description"] == "Notifications carry the topic as method: apps.changed, late.changed.")
        #expect(third["methods"] == second["methods"])
    }

    @Test func subscriptionsAreKeptPerConnection() throws {
        let dispatcher = RPCDispatcher()
        dispatcher.topics = ["apps.changed", "sinks.changed"]
        dispatcher.registerBuiltins(title: "Deck", version: "0.1.0")
        let connection = RPCConnection { _ in }
        _ = dispatcher.handle(#"{"jsonrpc":"2.0","method":"events.subscribe","params":{"topics":["apps.changed","sinks.changed"]},"id":1}"#, connection: connection)
        #expect(connection.topics == ["apps.changed", "sinks.changed"])
        _ = dispatcher.handle(#"{"jsonrpc":"2.0","method":"events.unsubscribe","params":[["sinks.changed"]],"id":2}"#, connection: connection)
        #expect(connection.topics == ["apps.changed"])
        let bad = try JSONValue.parse(try #require(dispatcher.handle(
            #"{"jsonrpc":"2.0","method":"events.subscribe","params":{"topics":["weather"]},"id":3}"#, connection: connection)))
        #expect(bad["error"]?["code"] == -32602)
        #expect(RPCDispatcher.notification("apps.changed", ["apps": []]) == #"{"jsonrpc":"2.0","method":"apps.changed","params":{"apps":[]}}"#)
    }
}

extension RPCDispatcherTests {
    /// A deferred method answers when its reply runs: alone, as its own line later; in a batch, the
    /// batch goes out once, whole, in request order, even when a later member completes it.
    @Test func aDeferredAnswerGoesOutOnceWhenItComes() throws {
        let dispatcher = RPCDispatcher()
        var waiting: [RPCMethod.Reply] = []
        dispatcher.register(RPCMethod("slow.ask", "answers later", deferred: { _, reply in waiting.append(reply) }))
        dispatcher.register(RPCMethod("slow.release", "answers what waits") { _ in
            waiting.forEach { $0(.success("done")) }
            waiting = []
            return true
        })
        var sent: [String] = []
        let connection = RPCConnection { sent.append($0) }

        #expect(dispatcher.handle(#"{"jsonrpc":"2.0","method":"slow.ask","id":1}"#, connection: connection) == nil)
        #expect(sent.isEmpty)
        _ = dispatcher.handle(#"{"jsonrpc":"2.0","method":"slow.release","id":2}"#, connection: connection)
        #expect(sent == [#"{"id":1,"jsonrpc":"2.0","result":"done"}"#])

        sent = []
        let batch = #"[{"jsonrpc":"2.0","method":"slow.ask","id":3},{"jsonrpc":"2.0","method":"slow.release","id":4}]"#
        let answer = dispatcher.handle(batch, connection: connection)
        #expect(answer == #"[{"id":3,"jsonrpc":"2.0","result":"done"},{"id":4,"jsonrpc":"2.0","result":true}]"#)
        #expect(sent.isEmpty)

        #expect(dispatcher.handle(#"[{"jsonrpc":"2.0","method":"slow.ask","id":5}]"#, connection: connection) == nil)
        connection.closed()
        _ = dispatcher.handle(#"{"jsonrpc":"2.0","method":"slow.release","id":6}"#, connection: RPCConnection { _ in })
        #expect(sent.isEmpty)  // its client is gone: the late answer is dropped
    }
}
