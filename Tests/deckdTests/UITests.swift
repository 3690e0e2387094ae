import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime

/// The screen through deckd and deckctl, with Tone: what the driver sees, selecting plays,
/// driving cuts the list, back at the root does nothing, and ui.changed follows.
@Suite struct UITests {
    @Test func deckctlShowsToneSelectsASignalAndDrivingCutsTheList() throws {
        let deckd = try DeckdProcess.firstParty()
        var screen = try deckd.deckctl(["ui"])
        #expect(screen.status == 0)
        var lines = screen.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "org.deck.tone — 800×480, parked · quota 4 of 5 left")
        let sine = try #require(lines.first { $0.hasSuffix("] Sine 1000 Hz") }?.split(separator: "]").first?.dropFirst(3))
        #expect(lines.contains("  ▼ 26 more below"))  // 9 rows fit 480 pixels
        #expect(lines.contains("content: [/0] Tones  [/1] Sweeps  [/2] Noise"))

        screen = try deckd.deckctl(["select", String(sine)])
        #expect(screen.status == 0)
        #expect(screen.output.contains("  [\(sine)] Sine 1000 Hz ♪"))
        #expect(try deckd.deckctl(["now-playing", "--format", "{{title}} {{status}}"]).output == "Sine 1000 Hz playing\n")

        #expect(try deckd.deckctl(["display", "--driving", "on"]).output == "800×480 @1.0x, attached, driving (lists and keyboard limited)\n")
        lines = try deckd.deckctl(["ui"]).output.split(separator: "\n").map(String.init)
        #expect(lines.first == "org.deck.tone — 800×480, driving · quota 4 of 5 left")
        #expect(lines.contains("  … 23 cut by the limits"))
        let json = try JSONValue.parse(try deckd.deckctl(["--json", "ui"]).output)
        let rows = json["stack"]?.arrayValue?.first?["sections"]?.arrayValue?.flatMap { $0["items"]?.arrayValue ?? [] } ?? []
        #expect(rows.count == 12)
        #expect(json["limits"]?["listItems"] == 12)

        #expect(try deckd.deckctl(["select", "/2/0"]).status == 0)
        #expect(try deckd.deckctl(["now-playing", "--format", "{{title}}"]).output == "Pink noise\n")
        #expect(try deckd.deckctl(["back"]).status == 0)  // at the root: nothing happens
        #expect(try deckd.deckctl(["select", "999"]) == (1, "deckctl: -32602 Invalid params: no item 999 on org.deck.tone's screen; ui.get lists the ids\n"))
        #expect(try deckd.deckctl(["select", "x"]).status == 2)
        #expect(try deckd.deckctl(["display", "--driving", "maybe"]).status == 2)
        #expect(try deckd.deckctl(["display", "--driving", "on", "--driving", "off"])
                == (2, "deckctl: --driving is given twice; give it once\nTry 'deckctl --help' for more information.\n"))

        #expect(try deckd.deckctl(["display", "--attached", "off"]).output.contains("detached"))
        #expect(try deckd.deckctl(["ui"]).output == "the display is detached (deckctl display --attached on); audio plays on\n")
        #expect(try deckd.deckctl(["back"]) == (1, "deckctl: -32004 Command failed: no display is attached (display.set {\"attached\": true})\n"))
        #expect(try deckd.deckctl(["now-playing", "--format", "{{status}}"]).output == "playing\n")  // audio plays on
    }

    @Test func uiChangedFollowsEveryChange() throws {
        let deckd = try DeckdProcess.firstParty()
        let client = LineClient(path: deckd.socket)
        #expect(client.call("events.subscribe", #"{"topics":["ui.changed"]}"#)?.contains("\"result\"") == true)
        #expect(try deckd.deckctl(["display", "--driving", "on"]).status == 0)
        let line = try #require(client.readLine())
        let notice = try JSONValue.parse(line)
        #expect(notice["method"] == "ui.changed")
        #expect(notice["params"]?["display"]?["driving"] == true)
        #expect(notice["params"]?["seq"]?.intValue != nil)
    }

    /// A plugin that completes a load inside begin_loading (with success or an error) used to send
    /// deckd into endless recursion: now the completion is read on the next loop turn.
    @Test(arguments: ["DECK_OK", "DECK_E_STATE"])
    func aLoadCompletedInsideTheCallThatAskedForItLeavesDeckdRunning(status: String) throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/plugins", withIntermediateDirectories: true)
        try Fixture.bundle(in: dir.path + "/plugins", name: "UI", defines: ["UI_SYNC_LOAD=\(status)"],
                           manifest: ["id": "org.deck.test.ui", "name": "UI fixture", "library": "libui.so"],
                           library: "libui.so", source: Paths.repoRoot + "/Tests/Fixtures/ui-plugin.c")
        let deckd = try DeckdProcess(["--plugins", dir.path + "/plugins", "--state", "none", "--sink", "file:\(dir.path)/out.opus"])
        #expect(deckd.waitForLog("deckd: ready"))
        #expect(try deckd.deckctl(["ui"]).status == 0)
        #expect(try deckd.deckctl(["select", "/1"]).status == 0)
        func screenNow() -> JSONValue { (try? JSONValue.parse(try deckd.deckctl(["--json", "ui"]).output)) ?? .null }
        #expect(waitUntil(seconds: 10) { screenNow()["content"]?["loading"] != true }, "the load completed, one way or the other")
        let screen = screenNow()
        if status == "DECK_OK" {
            #expect(screen["content"]?["items"]?.arrayValue?.map { $0["title"] } == ["Episode 1", "Episode 2"])
        } else {
            #expect(screen["content"]?["error"] == "org.deck.test.ui could not load it (DECK_E_STATE)")
            #expect(try deckd.deckctl(["ui"]).output.contains("org.deck.test.ui could not load it"))
        }
        #expect(deckd.log.components(separatedBy: "load: 1").count - 1 == 1)
        #expect(deckd.stop() == 0)
    }
}
