import DeckTestSupport
import Foundation
import Testing

/// A plugin run inline whose render hangs inside deckd: the daemon names it, plays on, and still
/// shuts down on SIGTERM with end of stream, saying so with exit status 1.
@Suite struct HungPluginTests {
    @Test func deckdSurvivesAHungRenderAndEndsOnSigtermWithEndOfStream() throws {
        let dir = TemporaryDirectory()
        let output = dir.path + "/out.opus"
        let deckd = try DeckdProcess.withFixture(in: dir.path, "Hang", id: "org.example.hang", isolation: .inline)
        #expect(deckd.waitForLog("deckd: ready"))
        #expect(try deckd.deckctl(["launch", "org.example.hang", "hang"]).status == 0)
        #expect(deckd.waitForLog("org.example.hang is hung"))
        #expect(deckd.log.contains("org.example.hang's render has not returned for 200 ms (audio.renderTimeoutMs)"))
        #expect(try deckd.deckctl(["apps"]).output.contains("org.example.hang  1.0.0  hung"))
        let started = Date()
        #expect(deckd.stop(signal: SIGTERM, seconds: 5) == 1)
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(deckd.log.contains("shut down cleanly, but gave up on hung plugin(s): org.example.hang"))
        let info = try AudioAnalysis.opusinfo(output)
        #expect(info.status == 0 && info.warnings.isEmpty, "\(info.output)")
        #expect(info.output.contains("Logical stream 1 ended"))
    }

    @Test func aLoopCallThatNeverReturnsIsNamedAndSigtermStillEndsDeckd() throws {
        let dir = TemporaryDirectory()
        let deckd = try DeckdProcess.withFixture(in: dir.path, "Stuck", id: "org.example.stuck", defines: ["FIXTURE_HANG_ACTIVATE"],
                                                 isolation: .inline)
        #expect(deckd.waitForLog("org.example.stuck: activate has not returned after"))
        // Named once it passes 100 ms: the guard sleeps until then, not until a poll comes round.
        let after = deckd.log.components(separatedBy: "activate has not returned after ").dropFirst().first?.split(separator: " ").first
        #expect(after.flatMap { Int($0) }.map { (101...500).contains($0) } == true, "\(deckd.log)")
        let started = Date()
        #expect(deckd.stop(signal: SIGTERM, seconds: 10) == 1)
        #expect(Date().timeIntervalSince(started) < 4)
        #expect(deckd.log.contains("SIGTERM received, shutting down"))
        #expect(deckd.log.contains("the shutdown did not finish within 2000 ms: org.example.stuck's activate has not returned for"))
        #expect(!FileManager.default.fileExists(atPath: deckd.socket))
    }
}
