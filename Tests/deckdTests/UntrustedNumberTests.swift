import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

/// One number from outside — a client, the state file, a plugin, a D-Bus peer — never ends deckd:
/// each is checked against its documented range and refused with a message, and deckd plays on.
@Suite struct UntrustedNumberTests {
    let dir = TemporaryDirectory()

    func answer(_ line: String?) throws -> [String: Any] {
        let text = try #require(line)
        return try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func volumeStepsBeyondAnyGroupAreRefusedAndTheKeysStillWork() throws {
        let deckd = try DeckdProcess.firstParty()
        let client = LineClient(path: deckd.socket)
        _ = client.call("volume.set", #"{"group":"media","index":20}"#)
        for steps in ["9223372036854775807", "-9223372036854775808", "1e19", "101", "2.5", "\"3\""] {
            let error = try answer(client.call("volume.adjust", #"{"group":"media","steps":\#(steps)}"#))["error"] as? [String: Any]
            #expect(error?["code"] as? Int == -32602, "steps \(steps)")
            #expect(error?["message"] as? String == #"Invalid params: "steps" must be a whole number from -100 to 100"#)
        }
        let stepped = try answer(client.call("volume.adjust", #"{"group":"media","steps":100}"#))
        let groups = (stepped["result"] as? [String: Any])?["groups"] as? [[String: Any]]
        #expect(groups?.first { $0["name"] as? String == "media" }?["index"] as? Int == 40)  // clamped at the top, as keys do
        let cli = try deckd.deckctl(["volume", "media", "+9223372036854775807"])
        #expect(cli.status != 0)
        #expect(cli.output.contains("must be a whole number from -100 to 100"))
        #expect(try deckd.deckctl(["volume", "media", "-3"]).status == 0)
        #expect(try deckd.deckctl(["status"]).status == 0)
        #expect(deckd.stop() == 0)
    }

    @Test func aStateFileWithAPositionOutOfRangeIsSetAsideAndDeckdStartsFresh() throws {
        let state = dir.path + "/state.json"
        let document = #"{"version":1,"lastSource":{"plugin":"org.deck.tone","position":1e19}}"#
        for attempt in 0..<2 {  // the second start finds a fresh file, not the same crash
            if attempt == 0 { try document.write(toFile: state, atomically: true, encoding: .utf8) }
            let deckd = try DeckdProcess.firstParty(["--state", state])
            if attempt == 0 {
                #expect(deckd.waitForLog("lastSource.position is 1e+19, out of range or of the wrong type; starting without saved state"))
                let aside = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("state.json.corrupt-") }
                #expect(aside.count == 1)
                #expect(try String(contentsOfFile: dir.path + "/" + aside[0], encoding: .utf8) == document)
            } else {
                #expect(!deckd.log.contains("starting without saved state"))
            }
            #expect(try deckd.deckctl(["status"]).status == 0)
            #expect(deckd.stop() == 0)
        }
    }

    @Test func aPluginPublishingAnElapsedTimeOutOfRangeIsRefusedAndNothingIsSaved() throws {
        try FileManager.default.createDirectory(atPath: dir.path + "/plugins", withIntermediateDirectories: true)
        try Fixture.app(in: dir.path + "/plugins", "Far", id: "org.deck.test.far", defines: ["FIXTURE_ELAPSED=1e19", "FIXTURE_DURATION=-1"])
        let state = dir.path + "/state.json"
        let deckd = try DeckdProcess(["--plugins", dir.path + "/plugins", "--state", state, "--sink", "file:\(dir.path)/out.opus"])
        #expect(deckd.waitForLog("deckd: ready"))
        #expect(try deckd.deckctl(["launch", "org.deck.test.far", "sine-440"]).status == 0)
        #expect(deckd.waitForLog("now playing: -1 set_info: elapsed must be a number of seconds from 0 to 1000000000.0"))
        let shown = try deckd.deckctl(["now-playing"])
        #expect(shown.status == 0)
        #expect(deckd.stop() == 0)
        let again = try DeckdProcess(["--plugins", dir.path + "/plugins", "--state", state, "--sink", "file:\(dir.path)/again.opus"])
        #expect(again.waitForLog("deckd: ready"))
        #expect(!again.log.contains("starting without saved state"))
        #expect(again.stop() == 0)
    }

    @Test func deckctlShowsAnElapsedTimeAtTheLimitWithoutDying() throws {
        try FileManager.default.createDirectory(atPath: dir.path + "/plugins", withIntermediateDirectories: true)
        try Fixture.app(in: dir.path + "/plugins", "Long", id: "org.deck.test.long", defines: ["FIXTURE_ELAPSED=1e9", "FIXTURE_DURATION=1e9"])
        let deckd = try DeckdProcess(["--plugins", dir.path + "/plugins", "--state", "none", "--sink", "file:\(dir.path)/out.opus"])
        #expect(deckd.waitForLog("deckd: ready"))
        // The fixture's first callback moves a published position to 5 s: let it come before the launch.
        #expect(deckd.waitForLog("callback: loop thread"))
        #expect(try deckd.deckctl(["launch", "org.deck.test.long", "sine-440"]).status == 0)
        #expect(deckd.waitForLog("now playing: 0"))
        let shown = try deckd.deckctl(["now-playing", "--format", "{{elapsed}} {{position}} {{duration}}"])
        #expect(shown.status == 0)
        #expect(shown.output == "1000000000 277777:46:40 277777:46:40\n")
        #expect(deckd.stop() == 0)
    }
}
