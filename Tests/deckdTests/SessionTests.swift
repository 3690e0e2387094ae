import DeckTestSupport
import Foundation
import Testing

/// The audio session through the whole daemon: a request over the socket, the config file's
/// session section, and the level measured on the rendered file.
@Suite struct SessionTests {
    let deckctl = Paths.binDir + "/deckctl"
    let firstParty = Paths.binDir + "/plugins"

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
        let request = try runProgram(deckctl, ["--socket", daemon.socket, "call", "session.request", #"{"context":"navigation"}"#])
        #expect(request.output.contains("granted"))
        let session = try runProgram(deckctl, ["--socket", daemon.socket, "--json", "session"]).output
        #expect(session.contains(#""state":"ducked""#))
        try daemon.waitForFrames(75)  // the 500 ms ramp, then a second ducked
        #expect(daemon.stop() == 0)

        let left = try AudioAnalysis.decodeWithFFmpeg(dir.path + "/out.opus").left
        let before = AudioAnalysis.rms(left[9_600..<24_000])
        let after = AudioAnalysis.rms(left[(left.count - 28_800)..<(left.count - 4_800)])
        let measured = 20 * log10(after / before)
        #expect(abs(measured - expected) <= 0.5, "measured \(measured) dB")
    }
}
