import DeckTestSupport
import Foundation
import Testing

/// `deckd --freewheel --duration … --play … --sink file:…` renders a file with no client at all,
/// and tools nobody here wrote (opusinfo, opusdec, ffmpeg) judge it.
@Suite struct StreamingTests {
    let deckd = Paths.binDir + "/deckd"
    let firstParty = Paths.corePlugins

    func render(_ item: String, seconds: String, extra: [String] = []) throws -> (path: String, dir: TemporaryDirectory, log: String) {
        let dir = TemporaryDirectory()
        let path = dir.path + "/out.opus"
        let (status, log) = try runProgram(deckd, ["--plugins", firstParty, "--freewheel", "--duration", seconds,
                                                   "--play", "org.deck.tone:\(item)", "--sink", "file:\(path)",
                                                   "--socket", dir.path + "/deck.sock"] + extra)
        #expect(status == 0, "\(log)")
        return (path, dir, log)
    }

    @Test func twoTonesInTwoChannelsSurviveTheRoundTrip() throws {
        let (path, dir, log) = try render("stereo-440-660", seconds: "3")
        _ = dir
        #expect(log.contains("--duration reached, shutting down"))

        let info = try AudioAnalysis.opusinfo(path)
        #expect(info.status == 0)
        #expect(info.warnings.isEmpty, "\(info.output)")
        #expect(info.output.contains("Encoded with Deck 0.1.0"))
        #expect(info.output.contains("Pre-skip: 312"))
        #expect(info.output.contains("Channels: 2"))
        #expect(info.output.contains("Playback length: 0m:03.000s"))

        #expect(try AudioAnalysis.decodeWithOpusdec(path) == 3 * 48_000)
        let decoded = try AudioAnalysis.decodeWithFFmpeg(path)
        #expect(abs(decoded.frames - 3 * 48_000) <= 960)
        #expect(abs(try AudioAnalysis.dominantFrequency(decoded.left) - 440) < 3)
        #expect(abs(try AudioAnalysis.dominantFrequency(decoded.right) - 660) < 3)
        // 128 kbit/s Opus keeps a pure tone far above 30 dB.
        #expect(try AudioAnalysis.sineSNR(decoded.left, frequency: 440) > 30)
        #expect(try AudioAnalysis.sineSNR(decoded.right, frequency: 660) > 30)
        // −12 dBFS sine: RMS 0.25/√2.
        #expect(abs(AudioAnalysis.rms(decoded.left[4800..<96_000]) - 0.25 / 2.squareRoot()) < 0.01)
    }

    @Test(arguments: ["0.5", "1.01", "2.345"])
    func decodedDurationEqualsRenderedDuration(seconds: String) throws {
        let (path, dir, _) = try render("sine-1000", seconds: seconds)
        _ = dir
        let expected = Int((Double(seconds)! * 48_000).rounded())
        #expect(try AudioAnalysis.decodeWithOpusdec(path) == expected)
        #expect(try AudioAnalysis.opusinfo(path).warnings.isEmpty)
    }

    @Test func aSweepRisesThroughTheSpectrum() throws {
        let (path, dir, _) = try render("sweep", seconds: "8")
        _ = dir
        let decoded = try AudioAnalysis.decodeWithFFmpeg(path)
        // 20 Hz · 1000^(t/10): about 40 Hz at 1 s, 500 Hz at 4.5 s, 5 kHz at 8 s.
        let early = try AudioAnalysis.dominantFrequency(decoded.left, start: 36_000)
        let middle = try AudioAnalysis.dominantFrequency(decoded.left, start: 200_000)
        let late = try AudioAnalysis.dominantFrequency(decoded.left, start: 340_000)
        #expect(early < middle && middle < late)
        #expect((200...800).contains(middle))
    }

    @Test(arguments: [["--sink", "ftp://x"], ["--duration", "0"], ["--duration", "soon"], ["--play", ":x"]])
    func badStreamingFlagsAreUsageErrors(arguments: [String]) throws {
        let result = try runProgram(deckd, arguments)
        #expect(result.status == 2)
        #expect(result.output.hasPrefix("deckd: "))
    }

    @Test func encoderSettingsComeFromTheConfigFile() throws {
        let dir = TemporaryDirectory()
        try #"{"encoder": {"bitrate": 64000, "frameMs": 10, "complexity": 5, "application": "lowdelay"}}"#
            .write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let (path, out, _) = try render("sine-1000", seconds: "1", extra: ["--config", dir.path + "/deck.json"])
        _ = out
        let info = try AudioAnalysis.opusinfo(path)
        #expect(info.output.contains("Packet duration:   10.0ms (max),   10.0ms (avg),   10.0ms (min)"))
        #expect(info.warnings.isEmpty)

        try #"{"encoder": {"frameMs": 15}}"#.write(toFile: dir.path + "/bad.json", atomically: true, encoding: .utf8)
        let bad = try runProgram(deckd, ["--config", dir.path + "/bad.json"])
        #expect(bad.status == 2)
        #expect(bad.output.contains("frame size 15.0 ms is not an Opus frame size (2.5, 5, 10, 20, 40 or 60)"))
    }

    @Test func anUnopenableSinkIsReportedAndTheOthersRun() throws {
        let dir = TemporaryDirectory()
        let good = dir.path + "/good.opus"
        let (status, log) = try runProgram(deckd, ["--plugins", firstParty, "--freewheel", "--duration", "1",
                                                   "--play", "org.deck.tone:sine-440",
                                                   "--sink", "file:/nonexistent/dir/out.opus", "--sink", "file:\(good)",
                                                   "--socket", dir.path + "/deck.sock"])
        #expect(status == 0)
        #expect(log.contains("cannot open sink file:/nonexistent/dir/out.opus: cannot create /nonexistent/dir/out.opus: No such file or directory"))
        #expect(try AudioAnalysis.opusinfo(good).warnings.isEmpty)
    }
}
