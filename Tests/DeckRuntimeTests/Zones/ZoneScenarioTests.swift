import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime

/// Two zones as two cars: the library plays in the rear, the radio in the front; a call and a
/// navigation prompt in the front stay in the front, a safety chime shared by the front reaches
/// both, the rear's volume keys move only the rear. Judged on the decoded files of each zone.
@Suite struct ZoneScenarioTests {
    let dir = TemporaryDirectory()

    func harness(front: String, rear: String) throws -> StreamingHarness {
        try StreamingHarness(freewheel: false, sinks: ["file:\(front)?name=Front", "file:\(rear)?name=Rear"]) {
            $0.zones = [ZoneSettings(id: "front", name: "Front seats", sinks: ["Front"], sharedContexts: [.safety]),
                        ZoneSettings(id: "rear", name: "Rear seats", sinks: ["Rear"])]
            $0.session.duckRampMilliseconds = 100
            $0.session.restoreRampMilliseconds = 100
        }
    }

    @Test func eachZoneHearsItsOwnSessionAndOnlyWhatIsSharedCrossesOver() throws {
        let front = dir.path + "/front.opus", rear = dir.path + "/rear.opus"
        let harness = try harness(front: front, rear: rear)
        try harness.load(try Fixture.app(in: dir.path, "Library", id: "org.example.library"))
        try harness.load(try Fixture.app(in: dir.path, "Radio", id: "org.example.radio"))
        try harness.start()
        let rpc = harness.runtime.makeDispatcher()
        let launchedRear = try rpc.answer("apps.launch", #"{"id":"org.example.library","item":"sine-440","zone":"rear"}"#)
        #expect(launchedRear["result"]?["zone"] == "rear", "\(launchedRear)")
        #expect(try rpc.answer("apps.launch", #"{"id":"org.example.radio","item":"sine-660"}"#)["result"]?["zone"] == "front")
        harness.run(for: 1.0)                                                                     // 0–1 s: each zone plays its app
        func request(_ context: String, _ type: String, _ name: String) throws -> JSONValue? {
            try rpc.answer("session.request", #"{"context":"\#(context)","type":"\#(type)","name":"\#(name)","zone":"front"}"#)["result"]?["result"]
        }
        func abandon(_ name: String) throws { _ = try rpc.answer("session.abandon", #"{"name":"\#(name)","zone":"front"}"#) }
        #expect(try request("call", "gainTransient", "phone") == "granted")
        harness.run(for: 1.0)                                                                     // 1–2 s: a call in the front
        try abandon("phone")
        #expect(try request("navigation", "gainTransientMayDuck", "maps") == "granted")
        harness.run(for: 1.0)                                                                     // 2–3 s: a front-only prompt
        try abandon("maps")
        #expect(try request("safety", "gainTransientMayDuck", "chime") == "granted")
        let rearSession = try rpc.answer("session.get", #"{"zone":"rear"}"#)["result"]
        #expect(rearSession?["holders"]?.arrayValue?.contains { $0["owner"] == "integrator:chime" } == true, "the chime is shared with the rear")
        harness.run(for: 1.0)                                                                     // 3–4 s: a chime everywhere
        try abandon("chime")
        let keys = try rpc.answer("volume.adjust", #"{"steps":-10,"zone":"rear"}"#)["result"]
        #expect(keys?["adjusted"] == "media")
        harness.run(for: 1.0)                                                                     // 4–5 s: the rear's volume keys
        let frontVolume = try rpc.answer("volume.get", #"{"zone":"front"}"#)["result"]?["groups"]?.arrayValue?.first { $0["name"] == "media" }
        let rearVolume = try rpc.answer("volume.get", #"{"zone":"rear"}"#)["result"]?["groups"]?.arrayValue?.first { $0["name"] == "media" }
        #expect(frontVolume?["index"] != rearVolume?["index"])
        #expect(harness.shutDown(), "the files' writers did not finish")

        for path in [front, rear] {
            let info = try AudioAnalysis.opusinfo(path)
            #expect(info.status == 0 && info.warnings.isEmpty, "\(info.output)")
        }
        let frontAudio = try AudioAnalysis.decodeWithFFmpeg(front).left, rearAudio = try AudioAnalysis.decodeWithFFmpeg(rear).left
        /// A sine's level in dB over 0.4–0.9 s of second `phase`.
        func level(_ audio: [Float], _ frequency: Double, _ phase: Int) throws -> Double {
            20 * log10(max(try AudioAnalysis.sineAmplitude(audio, frequency: frequency, start: phase * 48_000 + 19_200), 1e-9))
        }
        let radio = try (0..<5).map { try level(frontAudio, 660, $0) }, library = try (0..<5).map { try level(rearAudio, 440, $0) }
        // Neither zone hears the other's app at any time.
        for phase in 0..<5 {
            #expect(try level(frontAudio, 440, phase) < -60, "the library in the front at \(phase) s")
            #expect(try level(rearAudio, 660, phase) < -60, "the radio in the rear at \(phase) s")
        }
        #expect(radio[1] < -60, "the front radio is paused by the call: \(radio[1]) dB")
        #expect(abs(radio[2] - radio[0] - (-14)) <= 1, "the prompt ducks the front: \(radio[2] - radio[0]) dB")
        #expect(abs(radio[3] - radio[0] - (-14)) <= 1, "the chime ducks the front: \(radio[3] - radio[0]) dB")
        #expect(abs(radio[4] - radio[0]) <= 0.5, "the rear's keys leave the front: \(radio[4] - radio[0]) dB")
        #expect(abs(library[1] - library[0]) <= 0.5, "the rear plays on through the front's call: \(library[1] - library[0]) dB")
        #expect(abs(library[2] - library[0]) <= 0.5, "the front's prompt leaves the rear: \(library[2] - library[0]) dB")
        #expect(abs(library[3] - library[0] - (-14)) <= 1, "the shared chime ducks the rear: \(library[3] - library[0]) dB")
        #expect(library[4] - library[0] < -3, "the rear's keys lower the rear: \(library[4] - library[0]) dB")
    }
}
