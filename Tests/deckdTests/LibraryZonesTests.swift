import DeckTestSupport
import Foundation
import Testing

/// The Library and the Radio in two zones: a suite of its own, so that its playing in real time
/// overlaps LibraryTests'.
@Suite struct LibraryZonesTests {
    /// Two zones as two cars, with the first-party apps: the Library plays an album in the rear, the
    /// Radio a station from a local Icecast server in the front. A call in the front pauses the
    /// radio while the rear plays on; a navigation prompt of the front's ducks the front only; a
    /// safety chime, which the front shares, ducks both; the rear's volume keys lower the rear
    /// only. Each measured on the decoded file of each zone.
    @Test func theLibraryInTheRearAndTheRadioInTheFrontPlayAsTwoCars() throws {
        let icecast = try IcecastServer()
        try icecast.startSource("/live.mp3", codec: "mp3", frequency: 250, volume: 0.25)
        let dir = TemporaryDirectory()
        try """
            {"dataDirectory": "data", "isolation": {"mediaFolders": ["\(LibraryTests.music)"]},
             "session": {"duckRampMs": 100, "restoreRampMs": 100},
             "zones": [{"id": "front", "name": "Front seats", "sinks": ["Front"], "sharedContexts": ["safety"]},
                       {"id": "rear", "name": "Rear seats", "sinks": ["Rear"]}]}
            """.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir.path + "/data/org.deck.radio", withIntermediateDirectories: true)
        try RadioTests.write([("Deck FM", icecast.url("/live.mp3"), "Test")], to: dir.path + "/data/org.deck.radio/stations.json")
        let deckd = try DeckdProcess(["--config", dir.path + "/deck.json", "--plugins", Paths.binDir + "/plugins", "--state", "none",
                                      "--sink", "file:\(dir.path)/front.opus?name=Front", "--sink", "file:\(dir.path)/rear.opus?name=Rear"])
        #expect(deckd.waitForLog("library: loudness measured for 15 tracks", seconds: 60), "\(deckd.log)")
        let track = "\(LibraryTests.music)/Loud Band/Loud Album/01 Track 1.flac"
        #expect(try deckd.deckctl(["--zone", "rear", "launch", "org.deck.library", track]).output.contains("in rear"))
        _ = try deckd.deckctl(["--zone", "rear", "call", "player.setRepeat", #"{"mode":"one"}"#])  // 550 Hz throughout
        #expect(try deckd.deckctl(["--zone", "front", "launch", "org.deck.radio", "Deck FM"]).output.contains("in front"))
        try deckd.waitForFrames(150, seconds: 30)  // the station buffered and on the air

        /// Frames at the start of each phase; each lasts 100 frames (2 s), its focus held over a
        /// connection of its own, then released, with 100 more for the radio to come back.
        var marks: [Int] = []
        func phase(_ request: String?) throws {
            let holder = LineClient(path: deckd.socket)
            defer { holder.close() }
            if let request {
                let answer = holder.call("session.request", request)
                #expect(answer?.contains(#""result":"granted""#) == true, "\(answer ?? "no answer")")
            }
            marks.append(try deckd.frames())
            try deckd.waitForFrames(100, seconds: 30)
        }
        try phase(nil)                                                                                        // both play
        try phase(#"{"context":"call","type":"gainTransient","name":"phone","zone":"front"}"#)                 // a call in the front
        try deckd.waitForFrames(100, seconds: 30)
        try phase(#"{"context":"navigation","type":"gainTransientMayDuck","name":"maps","zone":"front"}"#)     // a front-only prompt
        try phase(#"{"context":"safety","type":"gainTransientMayDuck","name":"chime","zone":"front"}"#)        // a chime everywhere
        #expect(try deckd.deckctl(["--zone", "rear", "volume", "-10"]).status == 0)                          // the rear's keys
        try phase(nil)
        #expect(deckd.stop() == 0)

        let front = try AudioAnalysis.decodeWithFFmpeg(dir.path + "/front.opus").left
        let rear = try AudioAnalysis.decodeWithFFmpeg(dir.path + "/rear.opus").left
        /// A sine's level in dB over the second half of phase `index` (past every ramp).
        func level(_ audio: [Float], _ frequency: Double, _ index: Int) throws -> Double {
            let start = (marks[index] + 50) * 960
            guard start + 33_600 <= audio.count else { return -200 }
            return 20 * log10(max(try AudioAnalysis.sineAmplitude(audio, frequency: frequency, start: start, count: 33_600), 1e-9))
        }
        let radio = try marks.indices.map { try level(front, 250, $0) }, library = try marks.indices.map { try level(rear, 550, $0) }
        for index in marks.indices {
            #expect(try level(front, 550, index) < -60, "the library in the front in phase \(index)")
            #expect(try level(rear, 250, index) < -60, "the radio in the rear in phase \(index)")
        }
        #expect(radio[0] > -40 && library[0] > -40, "both play: radio \(radio[0]) dB, library \(library[0]) dB")
        #expect(radio[1] < -60, "the call pauses the front's radio: \(radio[1]) dB")
        #expect(abs(radio[2] - radio[0] + 14) <= 1.5, "the prompt ducks the front: \(radio[2] - radio[0]) dB")
        #expect(abs(radio[3] - radio[0] + 14) <= 1.5, "the chime ducks the front: \(radio[3] - radio[0]) dB")
        #expect(abs(radio[4] - radio[0]) <= 1, "the rear's keys leave the front: \(radio[4] - radio[0]) dB")
        #expect(abs(library[1] - library[0]) <= 0.5, "the rear plays on through the front's call: \(library[1] - library[0]) dB")
        #expect(abs(library[2] - library[0]) <= 0.5, "the front's prompt leaves the rear: \(library[2] - library[0]) dB")
        #expect(abs(library[3] - library[0] + 14) <= 1.5, "the shared chime ducks the rear: \(library[3] - library[0]) dB")
        #expect(library[4] - library[0] < -10, "the rear's keys lower the rear: \(library[4] - library[0]) dB")
    }
}
