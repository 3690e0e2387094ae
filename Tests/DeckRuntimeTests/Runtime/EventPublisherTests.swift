import DeckTestSupport
import Testing
@testable import DeckRuntime

/// Notifications are made for whoever takes them: a topic nobody subscribes to costs no payload
/// and takes no number, so a client taking every topic sees every number, without a gap.
@Suite struct EventPublisherTests {
    @Test func aTopicNobodyTakesIsNotMadeAndTakesNoNumber() throws {
        let runtime = try Runtime(configuration: RuntimeConfiguration(), logger: LogCapture().logger)
        defer { runtime.shutdown() }
        let dispatcher = runtime.makeDispatcher()
        func change() throws {
            _ = try dispatcher.answer("volume.adjust", #"{"group":"media","steps":1}"#)
            _ = try dispatcher.answer("session.request", #"{"context":"notification","name":"chime"}"#)
            _ = try dispatcher.answer("session.abandon", #"{"name":"chime"}"#)
        }
        try change()
        #expect(runtime.events.sequence == 0)

        var seen: [String] = []
        let hmi = RPCConnection { seen.append($0) }
        hmi.topics = Set(runtime.events.topics)
        runtime.events.add(hmi)
        try change()
        let notes = try seen.map { try JSONValue.parse($0) }
        let topics = Set(notes.compactMap { $0["method"]?.stringValue })
        #expect(topics.isSuperset(of: ["volume.changed", "session.changed"]), "\(topics)")
        #expect(notes.compactMap { $0["params"]?["seq"]?.intValue } == Array(1...Int64(notes.count)))

        // One topic taken: only its notifications are numbered.
        runtime.events.remove(hmi)
        seen = []
        let keys = RPCConnection { seen.append($0) }
        keys.topics = ["volume.changed"]
        runtime.events.add(keys)
        try change()  // the step, then the keys' group: the chime's while it plays, media again after
        let keysSeen = try seen.map { try JSONValue.parse($0)["params"] }
        #expect(keysSeen.map { $0?["keys"]?.stringValue } == ["media", "alerts", "media"], "\(seen)")
        #expect(keysSeen.compactMap { $0?["seq"]?.intValue } == Array((Int64(notes.count) + 1)...(Int64(notes.count) + 3)))
        #expect(runtime.events.sequence == notes.count + 3)
    }
}
