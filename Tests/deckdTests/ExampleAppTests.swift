import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

/// examples/ui-c, built with plain cc and pkg-config as a third party would, as a driver uses it through deckd:
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
                                                              "--play", "org.example.stations:e659", "--sink", "file:\(out)", "--socket", dir.path + "/d.sock"], timeout: 30)
        #expect(result.status == 0, "\(result.output)")
        let audio = try AudioAnalysis.decodeWithFFmpeg(out)
        #expect(abs(try AudioAnalysis.dominantFrequency(audio.left, start: 24_000) - 659.25) < 3)
    }

    /// examples/plugin-swift: a Swift package outside this one, built with SwiftPM against the
    /// installed SDK (DeckSDK and deck-plugin.pc in .build/sdk, as `make install` lays them out).
    @Test func theSwiftExampleBuiltOutsideThePackageShowsPlaysAndFollowsRemoteCommands() throws {
        let plugins = (Paths.metronomeBundle as NSString).deletingLastPathComponent
        let deckd = try DeckdProcess(["--plugins", plugins, "--state", "none"])
        #expect(deckd.waitForLog("deckd: ready"), "\(deckd.log)")
        #expect(try deckd.deckctl(["ui"]).output.contains("120 BPM"))
        #expect(try deckd.deckctl(["select", "/0/2"]).status == 0)
        #expect(try deckd.deckctl(["now-playing", "--format", "{{title}} · {{artist}} · {{status}}"]).output == "120 BPM · Metronome · playing\n")
        #expect(try deckd.deckctl(["next"]).status == 0)
        #expect(try deckd.deckctl(["now-playing", "--format", "{{title}}"]).output == "150 BPM\n")
        #expect(try deckd.deckctl(["next"]).status == 0)
        #expect(try deckd.deckctl(["next"]).output.contains("-32009"), "the fastest tempo has no next: it is greyed out")
        #expect(try deckd.deckctl(["pause"]).status == 0)
        #expect(try deckd.deckctl(["now-playing", "--format", "{{status}}"]).output == "paused\n")
        #expect(try deckd.deckctl(["--json", "ui"]).output.contains(#""detail":"paused""#))
        #expect(deckd.stop() == 0)

        // Its clicks in the output: one every half second at 120 BPM.
        let dir = TemporaryDirectory()
        let out = dir.path + "/metronome.opus"
        let result = try runProgram(Paths.binDir + "/deckd", ["--plugins", plugins, "--state", "none", "--freewheel", "--duration", "3",
                                                              "--play", "org.example.metronome:bpm-120", "--sink", "file:\(out)", "--socket", dir.path + "/d.sock"], timeout: 30)
        #expect(result.status == 0, "\(result.output)")
        let left = try AudioAnalysis.decodeWithFFmpeg(out).left
        var onsets: [Int] = [], quietSince = 0
        for (index, sample) in left.enumerated() {
            if abs(sample) > 0.1 {
                if index - quietSince > 4_800 { onsets.append(index) }
                quietSince = index
            }
        }
        let gaps = zip(onsets.dropFirst(), onsets).map { $0 - $1 }
        #expect(onsets.count >= 5 && gaps.allSatisfy { abs($0 - 24_000) < 480 }, "clicks at \(onsets)")

        // And deck-check finds nothing to report.
        let check = try runProgram(Paths.binDir + "/deck-check", ["--seconds", "2", Paths.metronomeBundle], timeout: 60)
        #expect(check.status == 0 && check.output.contains("(org.example.metronome): clean"), "\(check.output)")
    }
}
