import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

/// The audio session through the whole daemon: a request over the socket, the config file's
/// session section, and the level measured on the rendered file.
@Suite struct SessionTests {
    let deckctl = Paths.binDir + "/deckctl"
    let firstParty = Paths.corePlugins

    @Test(arguments: [(nil, -14.0), (-6.0, -6.0)])
    func aPromptDucksTheRenderedMusicByTheConfiguredLevel(duckDb: Double?, expected: Double) throws {
        let dir = TemporaryDirectory()
        var arguments = ["--plugins", firstParty, "--play", "org.deck.tone:sine-440", "--sink", "file:\(dir.path)/out.opus"]
        if let duckDb {
            try #"{"session": {"duckDb": \#(duckDb)}}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
            arguments += ["--config", dir.path + "/deck.json"]
        }
        let daemon = try DeckdProcess(arguments)
        #expect(daemon.waitForLog("output started"))
        try daemon.waitForFrames(30)
        // The prompt's focus lasts as long as the connection that asked for it.
        let prompt = LineClient(path: daemon.socket)
        #expect(prompt.call("session.request", #"{"context":"navigation"}"#)?.contains("granted") == true)
        let session = try runProgram(deckctl, ["--socket", daemon.socket, "--json", "session"]).output
        #expect(session.contains(#""state":"ducked""#))
        try daemon.waitForFrames(75)  // the 500 ms ramp, then a second ducked
        #expect(daemon.stop() == 0)
        prompt.close()

        let left = try AudioAnalysis.decodeWithFFmpeg(dir.path + "/out.opus").left
        let before = AudioAnalysis.rms(left[9_600..<24_000])
        let after = AudioAnalysis.rms(left[(left.count - 28_800)..<(left.count - 4_800)])
        let measured = 20 * log10(after / before)
        #expect(abs(measured - expected) <= 0.5, "measured \(measured) dB")
    }
}

extension SessionTests {
    /// A client of `deckd` subscribed to `session.changed`, whose reads time out after 5 s.
    func sessionWatcher(_ deckd: DeckdProcess) -> LineClient {
        let watcher = LineClient(path: deckd.socket, timeoutSeconds: 5)
        #expect(watcher.call("events.subscribe", #"{"topics":["session.changed"]}"#)?.contains("session.changed") == true)
        return watcher
    }

    /// Reads notifications until one on `topic` arrives (or the read times out).
    func nextNotification(_ client: LineClient, _ topic: String) throws -> JSONValue? {
        while let line = client.readLine() {
            let message = try JSONValue.parse(line)
            if message["method"] == .string(topic) { return message["params"] }
        }
        return nil
    }

    @Test func everyChangeOfSessionGetIsPublishedEvenWhenNoGainMoves() throws {
        let deckd = try DeckdProcess(["--plugins", firstParty])
        #expect(deckd.waitForLog("deckd: ready"))
        let watcher = sessionWatcher(deckd)
        let integrator = LineClient(path: deckd.socket)
        // A grant with nobody else holding, a re-request, and an abandon by the only holder.
        for (method, params) in [("session.request", #"{"context":"notification","name":"chime"}"#),
                                 ("session.request", #"{"context":"notification","name":"chime"}"#),
                                 ("session.abandon", #"{"name":"chime"}"#)] {
            #expect(integrator.call(method, params)?.contains("error") == false)
            let state = try #require(try nextNotification(watcher, "session.changed"), "after \(method)")
            let holders = state["holders"]?.arrayValue ?? []
            #expect(holders.count == (method == "session.abandon" ? 0 : 1))
        }
        #expect(deckd.stop() == 0)
    }

    @Test func focusRequestedOverAConnectionEndsWithItAndAbandoningNothingIsAnError() throws {
        let deckd = try DeckdProcess(["--plugins", firstParty, "--play", "org.deck.tone:sine-440"])
        #expect(deckd.waitForLog("output started"))
        let watcher = sessionWatcher(deckd)
        let hmi = LineClient(path: deckd.socket)
        #expect(hmi.call("session.request", #"{"context":"call","type":"gainTransient","name":"phone"}"#)?.contains("granted") == true)
        let paused = try #require(try nextNotification(watcher, "session.changed"))
        #expect(paused["holders"]?.arrayValue?.first { $0["owner"] == "org.deck.tone" }?["state"] == "paused")
        // What changed, for whom, so an integrator need not diff states.
        #expect(paused["changes"] == [["owner": "integrator:phone", "change": "granted"], ["owner": "org.deck.tone", "change": "paused"]])
        hmi.close()  // the HMI crashes
        let resumed = try #require(try nextNotification(watcher, "session.changed"))
        #expect(resumed["changes"] == [["owner": "integrator:phone", "change": "abandoned"], ["owner": "org.deck.tone", "change": "resumed"]])
        #expect(resumed["holders"]?.arrayValue?.map { $0["owner"] } == ["org.deck.tone"])
        #expect(resumed["holders"]?.arrayValue?.first?["state"] == "playing")
        #expect(deckd.waitForLog("integrator:phone: its client went away; abandoning its focus"))

        let other = LineClient(path: deckd.socket)
        let nothing = try JSONValue.parse(try #require(other.call("session.abandon", #"{"name":"ghost"}"#)))
        #expect(nothing["error"]?["code"] == -32004)
        #expect(nothing["error"]?["message"] == "Command failed: integrator:ghost holds no focus and awaits none")
        #expect(deckd.stop() == 0)
    }

    @Test func unloadingAPlayingAppPublishesThatItHoldsAndStreamsNothing() throws {
        let deckd = try DeckdProcess(["--plugins", firstParty, "--play", "org.deck.tone:sine-440"])
        #expect(deckd.waitForLog("output started"))
        let client = sessionWatcher(deckd)
        client.send(line: #"{"jsonrpc":"2.0","method":"apps.unload","params":{"id":"org.deck.tone"},"id":9}"#)
        #expect(client.readLine()?.contains(#""id":9"#) == true)  // the answer first
        // Its stream closes, then its focus goes: the last notification shows neither.
        var state = try #require(try nextNotification(client, "session.changed"))
        while state["holders"] != [], let next = try nextNotification(client, "session.changed") { state = next }
        #expect(state["holders"] == [])
        #expect(state["streams"] == [])
        #expect(deckd.stop() == 0)
    }
}

extension SessionTests {
    /// Where a stream starts or stops in a decoded file: the first and last sample above −60 dBFS.
    func edges(_ signal: [Float]) -> (start: Int, end: Int)? {
        guard let start = signal.firstIndex(where: { abs($0) > 1e-3 }), let end = signal.lastIndex(where: { abs($0) > 1e-3 }) else { return nil }
        return (start, end)
    }

    @Test func streamsStartAndStopWithoutClicksAndTheOutputEndsFaded() throws {
        let dir = TemporaryDirectory()
        let daemon = try DeckdProcess(["--plugins", firstParty, "--play", "org.deck.tone:sine-440", "--sink", "file:\(dir.path)/out.opus"])
        #expect(daemon.waitForLog("output started"))
        try daemon.waitForFrames(40)
        #expect(LineClient(path: daemon.socket).call("apps.unload", #"{"id":"org.deck.tone"}"#)?.contains("true") == true)
        try daemon.waitForFrames(25)
        #expect(daemon.stop() == 0)
        let left = try AudioAnalysis.decodeWithFFmpeg(dir.path + "/out.opus").left
        let (start, end) = try #require(edges(left))
        let atStart = try AudioAnalysis.levelAbove(4_000, in: left, start: max(0, start - 1_024))
        let atStop = try AudioAnalysis.levelAbove(4_000, in: left, start: end - 1_024)
        // Measured: about -118 and -130 dBFS; cut at full level the stop measured -52.
        #expect(atStart < -90, "energy above 4 kHz where the stream starts: \(atStart) dBFS")
        #expect(atStop < -90, "energy above 4 kHz where the stream stops: \(atStop) dBFS")
    }

    @Test func sigtermEndsTheOutputFadedBeforeItsLastPacket() throws {
        let dir = TemporaryDirectory()
        let daemon = try DeckdProcess(["--plugins", firstParty, "--play", "org.deck.tone:sine-440", "--sink", "file:\(dir.path)/out.opus"])
        #expect(daemon.waitForLog("output started"))
        try daemon.waitForFrames(40)
        #expect(daemon.stop(signal: SIGTERM) == 0)
        #expect(try AudioAnalysis.opusinfo(dir.path + "/out.opus").warnings.isEmpty)
        let left = try AudioAnalysis.decodeWithFFmpeg(dir.path + "/out.opus").left
        let (_, end) = try #require(edges(left))
        #expect(end < left.count - 240, "the fade ends before the final packet, not with it")
        let atEnd = try AudioAnalysis.levelAbove(4_000, in: left, start: max(0, min(end - 1_024, left.count - 2_048)))
        #expect(atEnd < -90, "energy above 4 kHz where the output ends: \(atEnd) dBFS")
    }
}
