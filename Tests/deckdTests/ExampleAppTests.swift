import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

/// examples/ui-c, built with plain cc as a third party would, as a driver uses it through deckd:
/// its station list on the screen and in the media UI's tree, now playing, remote commands, and
/// the station's tone in the output.
@Suite struct ExampleAppTests {
    var plugins: String { (Paths.stationsBundle as NSString).deletingLastPathComponent }

    @Test func theStationsAppShowsPlaysAndFollowsRemoteCommands() throws {
        let deckd = try DeckdProcess(["--plugins", plugins, "--state", "none"])
        #expect(deckd.waitForLog("deckd: ready"))
        let screen = try deckd.deckctl(["ui"]).output
        #expect(screen.contains("Stations (list)"))
        #expect(screen.contains("Station A (440 Hz) — Example Stations"))
        #expect(screen.contains("content: [/0] Stations"))
        #expect(try deckd.deckctl(["select", "/0/2"]).status == 0)
        #expect(try deckd.deckctl(["now-playing", "--format", "{{title}} · {{artist}} · {{status}}"]).output
                == "Station E (659 Hz) · Example Stations · playing\n")
        #expect(try deckd.deckctl(["next"]).status == 0)
        #expect(try deckd.deckctl(["now-playing", "--format", "{{title}}"]).output == "Station G (784 Hz)\n")
        #expect(try deckd.deckctl(["queue"]).output.contains("▶"))
        #expect(try deckd.deckctl(["pause"]).status == 0)
        #expect(try deckd.deckctl(["now-playing", "--format", "{{status}}"]).output == "paused\n")
        #expect(try deckd.deckctl(["--json", "ui"]).output.contains(#""playing":true"#))
        #expect(deckd.stop() == 0)
    }

    @Test func aStationPlaysItsToneInTheOutput() throws {
        let dir = TemporaryDirectory()
        let out = dir.path + "/stations.opus"
        let result = try runProgram(Paths.binDir + "/deckd", ["--plugins", plugins, "--state", "none", "--freewheel", "--duration", "2",
                                                              "--play", "org.example.stations:e659", "--sink", "file:\(out)"], timeout: 30)
        #expect(result.status == 0, "\(result.output)")
        let audio = try AudioAnalysis.decodeWithFFmpeg(out)
        #expect(abs(AudioAnalysis.dominantFrequency(audio.left, start: 24_000) - 659.25) < 3)
    }
}
