import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime

/// The zone-scoped API: a call acts on the zone it names, else on its connection's, else on the
/// primary one; apps move between zones with what they play; errors name what is wrong.
@Suite struct ZoneMethodsTests {
    let dir = TemporaryDirectory()

    func harness() throws -> StreamingHarness {
        try StreamingHarness(freewheel: false, sinks: ["file:\(dir.path)/front.opus?name=Front", "file:\(dir.path)/rear.opus?name=Rear"]) {
            $0.zones = [ZoneSettings(id: "front", name: "Front seats", sinks: ["Front"]), ZoneSettings(id: "rear", name: "Rear seats", sinks: ["Rear"])]
            $0.session.alwaysActive = false
        }
    }

    func holders(_ rpc: RPCDispatcher, _ zone: String) throws -> [String] {
        try rpc.answer("session.get", #"{"zone":"\#(zone)"}"#)["result"]?["holders"]?.arrayValue?.compactMap { $0["owner"]?.stringValue } ?? []
    }

    @Test func anAppMovesWithItsFocusItsStreamAndItsNowPlaying() throws {
        let harness = try harness()
        let library = try harness.load(try Fixture.app(in: dir.path, "Library", id: "org.example.library"))
        try harness.start()
        let rpc = harness.runtime.makeDispatcher()
        let badItem = try rpc.answer("apps.launch", #"{"id":"org.example.library","item":440,"zone":"rear"}"#)
        #expect(badItem["error"]?["message"] == #"Invalid params: "item" must be a string"#)
        #expect(harness.runtime.zones.zone(ofPlugin: library.id).id == "front", "a launch refused for its parameters does not move the app")
        #expect(try rpc.answer("apps.launch", #"{"id":"org.example.library","item":"sine-440","zone":"rear"}"#)["result"]?["zone"] == "rear")
        #expect(try holders(rpc, "rear") == ["org.example.library"])
        #expect(try holders(rpc, "front").isEmpty)
        #expect(try rpc.answer("nowPlaying.get", #"{"zone":"rear"}"#)["result"]?["owner"] == "org.example.library")
        #expect(try rpc.answer("nowPlaying.get")["result"]?["owner"] == .null)
        let rearSink = try #require(harness.runtime.sinks.list.first { $0.name == "Rear" }?.id)
        let frontSink = try #require(harness.runtime.sinks.list.first { $0.name == "Front" }?.id)
        #expect(harness.runtime.output.carriesAppAudio(rearSink))

        // Launching it in the front while it plays in the rear is refused, naming where it plays.
        let twice = try rpc.answer("apps.launch", #"{"id":"org.example.library","zone":"front"}"#)
        #expect(twice["error"]?["code"] == -32004)
        #expect(twice["error"]?["message"]?.stringValue?.contains("plays in zone rear; an app plays in one zone at a time") == true)
        // So it is from a connection bound to the front, the primary zone (`deckctl --zone front launch`).
        let frontHMI = RPCConnection { _ in }
        #expect(try rpc.answer("zones.bind", #"{"zone":"front"}"#, connection: frontHMI)["result"]?["zone"] == "front")
        let bound = try rpc.answer("apps.launch", #"{"id":"org.example.library","item":"sine-440"}"#, connection: frontHMI)
        #expect(bound["error"]?["message"]?.stringValue?.contains("plays in zone rear") == true, "\(bound)")
        #expect(try rpc.answer("apps.launch", #"{"id":"org.example.library","item":"sine-440"}"#)["result"]?["zone"] == "rear",
                "an unbound connection launches it where it is")

        let moved = try rpc.answer("apps.move", #"{"id":"org.example.library","zone":"front"}"#)
        #expect(moved["result"]?["zone"] == "front", "\(moved)")
        #expect(try holders(rpc, "front") == ["org.example.library"])
        #expect(try holders(rpc, "rear").isEmpty)
        #expect(try rpc.answer("nowPlaying.get")["result"]?["owner"] == "org.example.library", "now playing went along")
        #expect(try rpc.answer("nowPlaying.get", #"{"zone":"rear"}"#)["result"]?["owner"] == .null)
        #expect(harness.runtime.output.hasStream(library.id), "the stream carried on")
        let streams = try rpc.answer("session.get", #"{"zone":"front"}"#)["result"]?["streams"]
        #expect(streams == ["org.example.library"], "the front's session counts its stream")
        #expect(harness.runtime.zones.zone(ofPlugin: library.id).id == "front")
        #expect(harness.runtime.output.carriesAppAudio(frontSink))
    }

    @Test func aBoundConnectionActsOnItsZoneAndUnknownZonesAreNamed() throws {
        let harness = try harness()
        try harness.start()
        let rpc = harness.runtime.makeDispatcher()
        let rearHMI = RPCConnection { _ in }
        func answer(_ method: String, _ params: String) throws -> JSONValue {
            try JSONValue.parse(rpc.handle(#"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#, connection: rearHMI) ?? "null")
        }
        #expect(try answer("zones.bind", #"{"zone":"rear"}"#)["result"]?["zone"] == "rear")
        #expect(try answer("session.request", #"{"context":"navigation","name":"maps"}"#)["result"]?["result"] == "granted")
        #expect(try holders(rpc, "rear") == ["integrator:maps"])
        #expect(try holders(rpc, "front").isEmpty)
        #expect(try answer("session.request", #"{"context":"call","name":"phone","zone":"front"}"#)["result"]?["result"] == "granted",
                "a named zone wins over the binding")
        #expect(try holders(rpc, "front") == ["integrator:phone"])
        #expect(try answer("zones.bind", #"{"zone":null}"#)["result"]?["zone"] == "front")

        let unknown = try rpc.answer("volume.get", #"{"zone":"attic"}"#)
        #expect(unknown["error"]?["code"] == -32602)
        #expect(unknown["error"]?["message"] == #"Invalid params: unknown zone "attic" (zones: front, rear)"#)
        #expect(try rpc.answer("zones.bind", #"{"zone":"attic"}"#)["error"]?["code"] == -32602)
        #expect(try answer("zones.bind", #"{"zone":"rear"}"#)["result"]?["zone"] == "rear")
        #expect(try answer("zones.bind", #"{"zone":"attic"}"#)["error"]?["code"] == -32602)
        let owners = try answer("session.get", "{}")["result"]?["holders"]?.arrayValue?.compactMap { $0["owner"]?.stringValue }
        #expect(owners == ["integrator:maps"], "a refused bind keeps the connection bound to the rear")

        // A sink is picked among the zone's own.
        let front = try #require(harness.runtime.sinks.list.first { $0.name == "Front" }?.id)
        let picked = try rpc.answer("sinks.select", #"{"ids":[\#(front)],"zone":"rear"}"#)
        #expect(picked["error"]?["code"] == -32004)
        #expect(picked["error"]?["message"]?.stringValue?.contains("sink \(front) is in another zone") == true)
        let list = try rpc.answer("sinks.list")["result"]?.arrayValue ?? []
        #expect(list.map { $0["zone"]?.stringValue ?? "" } == ["front", "rear"])
        let rearOnly = try rpc.answer("sinks.list", #"{"zone":"rear"}"#)["result"]?.arrayValue ?? []
        #expect(rearOnly.map { $0["name"]?.stringValue ?? "" } == ["Rear"])

        let zones = try rpc.answer("zones.list")["result"]?["zones"]?.arrayValue ?? []
        #expect(zones.map { $0["id"]?.stringValue ?? "" } == ["front", "rear"])
        #expect(zones.first?["primary"] == true && zones.last?["primary"] == false)
        #expect(zones.last?["name"] == "Rear seats")
    }

    @Test func notificationsNameTheirZone() throws {
        let harness = try harness()
        var notes: [(String, JSONValue)] = []
        let listener = RPCConnection { line in
            guard let message = try? JSONValue.parse(line) else { return }
            notes.append((message["method"]?.stringValue ?? "", message["params"] ?? .null))
        }
        listener.topics = Set(Runtime.eventTopics)
        harness.runtime.events.add(listener)
        try harness.start()
        let rpc = harness.runtime.makeDispatcher()
        _ = try rpc.answer("volume.adjust", #"{"steps":-2,"zone":"rear"}"#)
        _ = try rpc.answer("session.request", #"{"context":"navigation","name":"maps","zone":"front"}"#)
        turnLoop(harness.runtime.loop, seconds: 2) { notes.contains { $0.0 == "session.changed" } }
        #expect(notes.first { $0.0 == "volume.changed" }?.1["zone"] == "rear")
        #expect(notes.first { $0.0 == "session.changed" }?.1["zone"] == "front")
    }

    @Test func driveLimitsOnlyThePrimaryDisplay() throws {
        let harness = try harness()
        try harness.start()
        let rpc = harness.runtime.makeDispatcher()
        #expect(try rpc.answer("display.set", #"{"driving":true}"#)["result"]?["driving"] == true)
        #expect(try rpc.answer("display.get", #"{"zone":"rear"}"#)["result"]?["driving"] == false)
        let refused = try rpc.answer("display.set", #"{"driving":true,"zone":"rear"}"#)
        #expect(refused["error"]?["code"] == -32602)
        #expect(refused["error"]?["message"]?.stringValue?.contains("a passenger display is not limited by driving") == true)
        #expect(try rpc.answer("display.set", #"{"width":1280,"zone":"rear"}"#)["result"]?["width"] == 1280)
        #expect(try rpc.answer("display.get")["result"]?["width"] == 800, "the front's display keeps its size")
    }
}

extension ZoneMethodsTests {
    /// Each zone's display shows the apps of its zone; an app that moves is shown, and limited,
    /// by its new zone's display.
    @Test func anAppIsShownOnItsZonesDisplay() throws {
        let harness = try harness()
        let ui = try Fixture.bundle(in: dir.path, name: "UI", manifest: ["id": "org.deck.test.ui", "name": "UI fixture", "entitlements": ["audio"],
                                                                          "library": "libui.so"],
                                    library: "libui.so", source: Paths.repoRoot + "/Tests/Fixtures/ui-plugin.c")
        let plugin = try harness.load(ui)
        try harness.start()
        let rpc = harness.runtime.makeDispatcher()
        _ = try rpc.answer("display.set", #"{"driving":true}"#)
        let front = try rpc.answer("ui.get")["result"]
        #expect(front?["app"] == "org.deck.test.ui")
        #expect(try rpc.answer("ui.get", #"{"zone":"rear"}"#)["result"]?["app"] == .null)
        let drivingItems = try #require(front?["limits"]?["listItems"]?.intValue)

        _ = try rpc.answer("apps.move", #"{"id":"org.deck.test.ui","zone":"rear"}"#)
        let rear = try rpc.answer("ui.get", #"{"zone":"rear"}"#)["result"]
        #expect(rear?["app"] == "org.deck.test.ui")
        #expect(rear?["apps"] == ["org.deck.test.ui"])
        #expect(try rpc.answer("ui.get")["result"]?["app"] == .null, "the front's screen has no app of its own now")
        let parkedItems = try #require(rear?["limits"]?["listItems"]?.intValue)
        #expect(parkedItems > drivingItems, "the rear display is not limited by driving: \(parkedItems) against \(drivingItems)")
        #expect(harness.log.messages(from: plugin.id).contains { $0.hasPrefix("limits") }, "the app was told its new limits")
    }
}

extension ZoneMethodsTests {
    /// A zone whose sinks are all closed, or that names none, hears nothing: each is said at the
    /// start, and an app playing there is named in a warning.
    @Test func anAppPlayingInAZoneWithoutASinkIsNamed() throws {
        let harness = try StreamingHarness(freewheel: false, sinks: ["file:\(dir.path)/front.opus?name=Front"]) {
            $0.zones = [ZoneSettings(id: "front", sinks: ["Front"]), ZoneSettings(id: "rear", sinks: ["Rear"]), ZoneSettings(id: "back", sinks: [])]
        }
        try harness.load(try Fixture.app(in: dir.path, "Library", id: "org.example.library"))
        try harness.start()
        #expect(harness.log.messages(from: "zones") == ["zone rear names the sink Rear, which is not open: its audio has nowhere to go "
                                                        + "there until a sink of that name opens (sinks.add with name=)",
                                                        "zone back names no sinks: its audio has nowhere to go until a client adds one there "
                                                        + "(sinks.add with zone)"])
        let rpc = harness.runtime.makeDispatcher()
        _ = try rpc.answer("apps.launch", #"{"id":"org.example.library","item":"sine-440","zone":"rear"}"#)
        #expect(harness.log.messages(from: "audio").contains(
            "org.example.library plays in zone rear, which has no open sink: nobody hears it until one is added there (sinks.add with its zone)"))
        let zones = try rpc.answer("zones.list")["result"]?["zones"]?.arrayValue
        #expect(zones?[1]["sinks"] == [], "zones.list shows the rear has none")
    }
}

extension ZoneMethodsTests {
    /// An app reloaded (as after a crash's restart) plays again in the zone it played in.
    @Test func anAppReloadedPlaysAgainInItsZone() throws {
        let harness = try harness()
        try harness.load(try Fixture.app(in: dir.path, "Library", id: "org.example.library"))
        try harness.start()
        let rpc = harness.runtime.makeDispatcher()
        _ = try rpc.answer("apps.launch", #"{"id":"org.example.library","item":"sine-440","zone":"rear"}"#)
        #expect(try holders(rpc, "rear") == ["org.example.library"])
        let reloaded = try rpc.answer("apps.reload", #"{"id":"org.example.library"}"#)
        #expect(reloaded["result"]?["zone"] == "rear", "\(reloaded)")
        #expect(turnLoop(harness.runtime.loop, seconds: 5) { harness.runtime.output.hasStream("org.example.library") })
        #expect(try holders(rpc, "rear") == ["org.example.library"])
        #expect(try holders(rpc, "front").isEmpty)
    }
}
