import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

/// Nobody holds the loop: one client, bus peer or plugin doing a lot does not make another
/// client wait for seconds.
@Suite struct LoopShareTests {
    /// Round trip of one call on a fresh connection, in seconds.
    func roundTrip(_ socket: String, _ method: String) -> (seconds: Double, line: String?) {
        let client = LineClient(path: socket, timeoutSeconds: 15)
        let start = Date()
        let line = client.call(method)
        return (Date().timeIntervalSince(start), line)
    }

    /// 50 selections that switch what plays, in one write: each switch closes a stream, and a
    /// close no longer waits for its fade, so another client is answered while they run
    /// (before: 80 ms a switch, 3.9 s for the other client).
    @Test func fiftySwitchesOfWhatPlaysDoNotHoldAnotherClient() throws {
        let deckd = try DeckdProcess.firstParty()
        #expect(try deckd.deckctl(["ui"]).status == 0)  // the content tree is read, as an HMI shows it
        let switcher = LineClient(path: deckd.socket, timeoutSeconds: 30)
        let burst = (0..<50).map { #"{"jsonrpc":"2.0","method":"ui.select","params":{"path":"0/\#($0 % 2)"},"id":\#($0)}"# }
        _ = switcher.send(line: burst.joined(separator: "\n"))
        usleep(20_000)
        let other = roundTrip(deckd.socket, "runtime.info")
        #expect(other.line?.contains(#""result""#) == true)
        // 0.6 s alone; 1.6 s once beside the other test shards: still well under the 3.9 s of before.
        #expect(other.seconds < 2, "runtime.info waited \(other.seconds) s behind 50 switches")
        var answered = 0
        while answered < 50, let line = switcher.readLine() { if line.contains(#""id":"#) { answered += 1 } }
        #expect(answered == 50)
        #expect(try deckd.deckctl(["now-playing", "--format", "{{title}} {{status}}"]).output.hasSuffix("playing\n"))
        #expect(deckd.stop() == 0)
    }

    /// A plugin whose callbacks each take 300 ms and that keeps asking for more is held to its
    /// share of the loop (its callbacks wait), then ended: other clients stay answered.
    @Test func aPluginThatKeepsOverspendingTheLoopIsHeldToItsShareThenEnded() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/plugins", withIntermediateDirectories: true)
        try Fixture.app(in: dir.path + "/plugins", "Greedy", id: "org.deck.test.greedy", defines: ["FIXTURE_GREEDY_CALLBACK=300"])
        try #"{"loopBudget": {"windowMs": 1000, "sharePercent": 20, "endAfterWindows": 2}}"#
            .write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let deckd = try DeckdProcess(["--config", dir.path + "/deck.json", "--plugins", dir.path + "/plugins", "--state", "none",
                                      "--sink", "file:\(dir.path)/out.opus"])
        #expect(deckd.waitForLog("deckd: ready"))
        #expect(deckd.waitForLog("org.deck.test.greedy took "))
        #expect(deckd.log.contains("on the loop thread (over its 20% share, loopBudget); the callbacks it asks for wait until it is within it"))
        var slowest = 0.0
        for _ in 0..<20 {
            slowest = max(slowest, roundTrip(deckd.socket, "runtime.info").seconds)
            usleep(50_000)
        }
        #expect(slowest < 0.5, "a client waited \(slowest) s behind the greedy plugin")
        let ended = TestIsolation.mode == .process ? "org.deck.test.greedy crashed: its process" : "it runs in deckd's process, so it is marked hung"
        #expect(deckd.waitForLog(ended, seconds: 15), "\(deckd.log)")
        #expect(deckd.log.contains("times within 2000 ms"))
        #expect(deckd.stop() == 0)
    }
}
