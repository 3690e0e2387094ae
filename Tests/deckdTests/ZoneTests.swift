import DeckTestSupport
import Foundation
import Testing

/// deckd with two audio zones: one MPRIS player per zone, seen by the real playerctl, and deckctl
/// acting on the zone `--zone` names.
@Suite struct ZoneTests {
    @Test func eachZoneIsAnMPRISPlayerAndDeckctlActsOnTheZoneItNames() throws {
        let dir = TemporaryDirectory()
        let bus = try MPRISTests.SessionBus(in: dir.path)
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let config = dir.path + "/zones.json"
        try #"{"zones": [{"id": "front", "name": "Front seats", "sinks": ["Front"]}, {"id": "rear", "name": "Rear seats", "sinks": ["Rear"]}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let deckd = try DeckdProcess.firstParty(["--config", config, "--mpris", "--state", "none",
                                                 "--sink", "file:\(dir.path)/front.opus?name=Front",
                                                 "--sink", "file:\(dir.path)/rear.opus?name=Rear"], environment: environment)
        #expect(deckd.waitForLog("on the session bus as org.mpris.MediaPlayer2.deck.front"))
        #expect(deckd.waitForLog("on the session bus as org.mpris.MediaPlayer2.deck.rear"))
        func playerctl(_ player: String, _ arguments: String...) throws -> String {
            try runProgram("/usr/bin/playerctl", ["-p", player] + arguments, environment: environment, timeout: 20).output
        }
        let players = try runProgram("/usr/bin/playerctl", ["-l"], environment: environment).output
        #expect(Set(players.split(separator: "\n")) == ["deck.front", "deck.rear"])

        let launched = try deckd.deckctl(["--zone", "rear", "launch", "org.deck.tone", "sweep"])
        #expect(launched.status == 0 && launched.output == "org.deck.tone: active in rear\n", "\(launched)")
        #expect(try playerctl("deck.rear", "status") == "Playing\n")
        #expect(try playerctl("deck.front", "status") == "Stopped\n")
        #expect(try playerctl("deck.rear", "metadata", "title") == "Sweep 20 Hz to 20 kHz\n")
        #expect(try deckd.deckctl(["now-playing", "--format", "{{status}}"]).output == "stopped\n", "the primary zone plays nothing")
        _ = try playerctl("deck.rear", "pause")
        #expect(try deckd.deckctl(["--zone", "rear", "now-playing", "--format", "{{status}}"]).output == "paused\n")

        #expect(try deckd.deckctl(["--zone", "rear", "volume", "-5"]).status == 0)
        func media(_ zone: String) throws -> Int? {
            let output = try deckd.deckctl(["--zone", zone, "--json", "volume"]).output
            let groups = (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])?["groups"] as? [[String: Any]]
            return groups?.first { $0["name"] as? String == "media" }?["index"] as? Int
        }
        let front = try #require(try media("front")), rear = try #require(try media("rear"))
        #expect(front - rear == 5, "the rear's keys moved the rear only: front \(front), rear \(rear)")

        let zones = try deckd.deckctl(["zones"]).output
        #expect(zones.contains("front (primary)  Front seats  sinks [1]"), "\(zones)")
        #expect(zones.contains("rear  Rear seats  sinks [2]") && zones.contains("playing org.deck.tone  apps [org.deck.tone]"), "\(zones)")
        let rearSinks = try deckd.deckctl(["--zone", "rear", "sinks"]).output.split(separator: "\n")
        #expect(rearSinks.count == 1 && rearSinks[0].hasPrefix("2  Rear  "), "the rear's sinks only: \(rearSinks)")
        #expect(try deckd.deckctl(["sinks"]).output.split(separator: "\n").count == 2, "without --zone, every sink")
        // Events followed with --zone are that zone's: the front's key between two of the rear's is not shown.
        let heard = dir.path + "/rear-events.txt"
        let events = try ChildProgram(Paths.binDir + "/deckctl", ["--socket", deckd.socket, "--zone", "rear", "events", "volume.changed"],
                                      output: .file(heard), errors: .null)
        func rearLines() -> [Substring] { ((try? String(contentsOfFile: heard, encoding: .utf8)) ?? "").split(separator: "\n") }
        var tries = 0
        while rearLines().isEmpty, tries < 50 {  // the subscription races the first key
            tries += 1
            _ = try deckd.deckctl(["--zone", "rear", "volume", tries % 2 == 0 ? "+1" : "-1"])
            usleep(100_000)
        }
        _ = try deckd.deckctl(["--zone", "front", "volume", "-1"])
        _ = try deckd.deckctl(["--zone", "rear", "volume", "+1"])
        let deadline = Date().addingTimeInterval(5)
        while rearLines().count < 2, Date() < deadline { usleep(50_000) }
        events.terminate()
        events.waitUntilExit()
        let lines = rearLines()
        #expect(lines.count >= 2 && lines.allSatisfy { $0.contains(#""zone":"rear""#) }, "\(lines)")
        let unknown = try deckd.deckctl(["--zone", "attic", "status"])
        #expect(unknown.status == 1 && unknown.output.contains(#"unknown zone "attic" (zones: front, rear)"#), "\(unknown.output)")
        #expect(!deckd.log.contains("error mpris"))
    }
}
