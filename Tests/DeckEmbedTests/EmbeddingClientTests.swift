import DeckTestSupport
import Glibc
import Synchronization
import Testing
@testable import DeckEmbed
@testable import DeckRuntime

/// Tagged answers and wakeups as a C integrator's callbacks see them.
private final class Tagged: @unchecked Sendable {  // Every field is behind `state`.
    let state = Mutex<(replies: [(UInt64, String)], wakeups: Int)>(([], 0))
    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ user: UnsafeMutableRawPointer?) -> Tagged { Unmanaged<Tagged>.fromOpaque(user!).takeUnretainedValue() }
}

private let onTaggedReply: EmbeddingAPI.TaggedReplyFunction = { user, tag, line in
    Tagged.from(user).state.withLock { $0.replies.append((tag, String(cString: line!))) }
}
private let onWakeup: EmbeddingAPI.WakeupFunction = { user in Tagged.from(user).state.withLock { $0.wakeups += 1 } }

/// Client handles (API 1.2): several clients on one runtime, each with its own connection,
/// subscriptions, queue, callbacks and focus; and reply tags kept apart from the JSON.
@Suite(.serialized) struct EmbeddingClientTests {
    let config = #"{"plugins": ["\#(Paths.binDir)/plugins"], "logLevel": "error"}"#

    func create() throws -> OpaquePointer {
        try #require(deck_runtime_create(config, nil))
    }

    func call(_ rt: OpaquePointer, _ method: String, _ params: String = "{}") -> JSONValue {
        var response: UnsafeMutablePointer<CChar>?
        let status = deck_runtime_call_sync(rt, #"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params),"id":1}"#, &response, 10_000)
        defer { deck_runtime_free(response) }
        guard status == 0, let response, let value = try? JSONValue.parse(String(cString: response)) else { return .null }
        return value["result"] ?? value
    }

    /// What each integrator owner holding focus is paused and ducked by, from `session.get`.
    func holders(_ rt: OpaquePointer) -> [String: (paused: [String], ducked: [String])] {
        var found: [String: (paused: [String], ducked: [String])] = [:]
        for holder in call(rt, "session.get")["holders"]?.arrayValue ?? [] {
            guard let owner = holder["owner"]?.stringValue else { continue }
            found[owner] = (holder["pausedBy"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                            holder["duckedBy"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
        return found
    }

    @Test func threeClientsHoldFocusIndependentlyAndDestroyingOneReleasesOnlyItsOwn() throws {
        let rt = try create()
        #expect(deck_runtime_start(rt) == 0)
        let hmi = try #require(deck_runtime_create_client(rt, "hmi"))
        let phone = try #require(deck_runtime_create_client(rt, "phone"))
        let navigation = try #require(deck_runtime_create_client(rt, "navigation"))
        // Each asks without naming itself: the owner is the client's name.
        #expect(call(hmi, "session.request", #"{"context":"music","type":"gain"}"#)["result"] == "granted")
        #expect(call(navigation, "session.request", #"{"context":"navigation"}"#)["result"] == "granted")
        #expect(holders(rt)["integrator:hmi"]?.ducked == ["integrator:navigation"])
        #expect(call(phone, "session.request", #"{"context":"call","type":"gainTransient"}"#)["result"] == "granted")
        #expect(holders(rt)["integrator:hmi"]?.paused == ["integrator:phone"])
        #expect(Set(holders(rt).keys) == ["integrator:hmi", "integrator:navigation", "integrator:phone"])

        #expect(deck_runtime_destroy(phone) == 0)
        #expect(holders(rt)["integrator:phone"] == nil, "the phone's focus went with its handle")
        #expect(holders(rt)["integrator:hmi"]?.paused == [], "the HMI's music resumes")
        #expect(holders(rt)["integrator:navigation"] != nil, "the others keep theirs")
        #expect(deck_runtime_destroy(navigation) == 0)
        #expect(holders(rt)["integrator:hmi"]?.ducked == [])
        #expect(deck_runtime_destroy(hmi) == 0)
        #expect(holders(rt).isEmpty)
        #expect(call(phone, "runtime.info") == .null && deck_runtime_destroy(phone) == -2, "a destroyed client stays an error")
        #expect(deck_runtime_destroy(rt) == 0)
    }

    @Test func eachClientHasItsOwnSubscriptionsAndQueue() throws {
        let rt = try create()
        let listener = try #require(deck_runtime_create_client(rt, "listener"))
        let quiet = try #require(deck_runtime_create_client(rt, "quiet"))
        let woken = Tagged()
        #expect(deck_runtime_set_wakeup(listener, onWakeup, woken.pointer) == 0)
        #expect(deck_runtime_subscribe(listener, "session.changed") == 0)
        #expect(deck_runtime_start(rt) == 0, "a wakeup does not commit the runtime to mode 2")
        #expect(call(quiet, "session.request", #"{"context":"alarm"}"#)["result"] == "granted")
        var message = DeckRuntimeMessage()
        #expect(deck_runtime_wait_message(listener, 5_000, &message) == 0)
        #expect(message.kind == 1 && message.replyTag == 0)
        #expect(String(cString: message.json!).contains(#""method":"session.changed""#))
        deck_runtime_free(message.json)
        // The wakeup follows the message into the queue, so the waiter may see the message first.
        #expect(waitUntil(seconds: 2) { woken.state.withLock { $0.wakeups } >= 1 }, "a message in the queue wakes the integrator in mode 1 too")
        #expect(deck_runtime_wait_message(quiet, 0, &message) == -5 && message.kind == 0 && message.json == nil,
                "the other client subscribed to nothing")
        #expect(deck_runtime_destroy(rt) == 0)
        #expect(deck_runtime_subscribe(listener, "session.changed") == -2, "a client of a destroyed runtime is an error")
        #expect(deck_runtime_destroy(listener) == 0 && deck_runtime_destroy(quiet) == 0)
    }

    @Test func replyTagsComeBackApartFromTheJSON() throws {
        let rt = try create()
        #expect(deck_runtime_start(rt) == 0)
        let client = try #require(deck_runtime_create_client(rt, "tags"))
        // Two calls with one JSON id: the tags tell their answers apart.
        #expect(deck_runtime_call_tagged(client, #"{"jsonrpc":"2.0","method":"runtime.info","id":7}"#, 0xDEC0_0000_0000_0001) == 0)
        #expect(deck_runtime_call_tagged(client, #"{"jsonrpc":"2.0","method":"volume.get","id":7}"#, 2) == 0)
        var answers: [UInt64: String] = [:]
        var message = DeckRuntimeMessage()
        while answers.count < 2, deck_runtime_wait_message(client, 5_000, &message) == 0 {
            #expect(message.kind == 2)
            answers[message.replyTag] = String(cString: message.json!)
            deck_runtime_free(message.json)
        }
        #expect(answers[0xDEC0_0000_0000_0001]?.contains(#""version""#) == true)
        #expect(answers[2]?.contains(#""groups""#) == true)
        var event: UnsafeMutablePointer<CChar>?
        #expect(deck_runtime_call_tagged(client, #"{"jsonrpc":"2.0","method":"runtime.info","id":8}"#, 3) == 0)
        #expect(call(client, "runtime.info") != .null)  // the tagged call ran before this one
        #expect(deck_runtime_wait_event(client, 0, &event) == -5, "wait_event takes notifications only; the answer stays")
        // With a reply callback, tagged answers go to it instead.
        let seen = Tagged()
        #expect(deck_runtime_set_reply_callback(client, onTaggedReply, seen.pointer) == 0)
        #expect(deck_runtime_call_tagged(client, #"{"jsonrpc":"2.0","method":"session.get","id":"x"}"#, 42) == 0)
        #expect(waitUntil(seconds: 5) { seen.state.withLock { $0.replies.contains { $0.0 == 42 && $0.1.contains(#""holders""#) } } })
        #expect(deck_runtime_call_tagged(client, #"{"jsonrpc":"2.0","method":"runtime.info"}"#, 43) == 0)  // a notification
        #expect(call(client, "runtime.info") != .null)
        #expect(!seen.state.withLock { $0.replies.contains { $0.0 == 43 } }, "a notification gets no answer")
        #expect(deck_runtime_wait_message(client, 0, &message) == 0 && message.replyTag == 3, "the earlier answer still waited")
        deck_runtime_free(message.json)
        #expect(deck_runtime_call_tagged(client, nil, 1) == -1 && deck_runtime_wait_message(client, 0, nil) == -1)
        #expect(deck_runtime_create_client(rt, "") == nil && deck_runtime_create_client(rt, "a b") == nil)
        #expect(deck_runtime_create_client(rt, String(repeating: "x", count: 65)) == nil && deck_runtime_create_client(nil, "x") == nil)
        #expect(deck_runtime_destroy(client) == 0)
        #expect(deck_runtime_destroy(rt) == 0)
    }
}

/// Audio zones (API 1.3): a client handle bound to a zone acts on it without naming it.
@Suite struct EmbeddingZoneTests {
    @Test func aClientBoundToTheRearActsOnTheRearsSession() throws {
        let config = #"{"plugins": [], "sinks": [], "logLevel": "error", "zones": [{"id": "front"}, {"id": "rear"}]}"#
        let rt = try #require(deck_runtime_create(config, nil))
        defer { _ = deck_runtime_destroy(rt) }
        #expect(deck_runtime_start(rt) == 0)
        let rearHMI = try #require(deck_runtime_create_client(rt, "rear-hmi"))
        #expect(deck_runtime_set_zone(rearHMI, "attic") == -1, "an unknown zone is DECK_RUNTIME_E_INVALID")
        #expect(deck_runtime_set_zone(rearHMI, "rear") == 0)
        func call(_ handle: OpaquePointer, _ method: String, _ params: String) throws -> JSONValue {
            var response: UnsafeMutablePointer<CChar>?
            #expect(deck_runtime_call_sync(handle, #"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params),"id":1}"#, &response, 10_000) == 0)
            defer { deck_runtime_free(response) }
            return try JSONValue.parse(String(cString: try #require(response)))["result"] ?? .null
        }
        #expect(try call(rearHMI, "session.request", #"{"context":"music","type":"gain"}"#)["result"] == "granted")
        let owners = { (zone: String) throws -> [String] in
            try call(rt, "session.get", #"{"zone":"\#(zone)"}"#)["holders"]?.arrayValue?.compactMap { $0["owner"]?.stringValue } ?? []
        }
        #expect(try owners("rear") == ["integrator:rear-hmi"])
        #expect(try owners("front").isEmpty, "the primary handle's zone is untouched")
        #expect(deck_runtime_set_zone(rearHMI, nil) == 0)
        #expect(try call(rearHMI, "session.get", "{}")["holders"]?.arrayValue?.isEmpty == true, "NULL: the primary zone again")
        #expect(deck_runtime_destroy(rearHMI) == 0)
        #expect(try owners("rear").isEmpty, "its focus went with its handle")
    }
}
