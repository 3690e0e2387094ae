import DeckTestSupport
import Foundation
import Testing

/// The Library's loudness: albums matched to one another and to a radio station, measured on the
/// output by ffmpeg's ebur128 filter, and an album of hundreds of tracks measured in constant memory.
/// A suite of its own, so that its minute of playing in real time overlaps LibraryTests'.
@Suite(.serialized) struct LibraryLoudnessTests {
    typealias Car = LibraryTests.Car

    @Test func albumsMastered10LUApartPlayWithin1LUAndAQuietPassageIsNotLifted() throws {
        let car = try Car()
        #expect(car.deckd.waitForLog("library: loudness measured for 15 tracks", seconds: 60), "\(car.deckd.log)")
        let loud = "\(LibraryTests.music)/Loud Band/Loud Album/01 Track 1.flac", quiet = "\(LibraryTests.music)/Quiet Band/Quiet Album/01 Track 1.flac"
        for track in [loud, quiet, "\(LibraryTests.music)/Dynamics/loud then quiet.flac"] {
            _ = try car.deckctl(["call", "apps.launch", #"{"id":"org.deck.library","item":"\#(track)"}"#])
            try car.deckd.waitForFrames(50 * 5)
        }
        try car.deckd.waitForFrames(50 * 8)
        #expect(car.deckd.stop() == 0)

        let output = car.dir.path + "/out.opus"
        let left = try AudioAnalysis.decodeWithFFmpeg(output).left
        let start = Double(left.firstIndex { abs($0) > 0.01 } ?? 0) / 48_000
        let first = try AudioAnalysis.integratedLoudness(output, start: start + 1, seconds: 3)
        let second = try AudioAnalysis.integratedLoudness(output, start: start + 6, seconds: 3)
        #expect(abs(first - second) <= 1, "loud album \(first) LUFS, quiet album \(second) LUFS (10 LU apart on disc)")
        #expect(abs(first - (-18)) <= 1.5, "both near the −18 LUFS target: \(first)")
        // The dynamic track: its loud half and its quiet half stay 20 dB apart.
        let loudHalf = try AudioAnalysis.integratedLoudness(output, start: start + 11, seconds: 3)
        let quietHalf = try AudioAnalysis.integratedLoudness(output, start: start + 17, seconds: 3)
        #expect(abs((loudHalf - quietHalf) - 20) <= 1.5, "the quiet passage is not lifted: \(loudHalf) then \(quietHalf)")
    }

    /// A USB stick of untagged files is one album ("Unknown Artist – Unknown Album") of hundreds
    /// of tracks. Its album loudness is measured in constant memory: the Library's host grows by
    /// less than 24 MiB at its peak over 400 tracks (a meter kept per track took 307 KB each, and
    /// 10,000 tracks ran its host out of address space).
    @Test func anAlbumOfHundredsOfTracksIsMeasuredInConstantMemory() throws {
        let dir = TemporaryDirectory()
        let album = dir.path + "/music/Unknown"
        try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true)
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=0.5", dir.path + "/tone.flac"])
        for index in 1...400 { try FileManager.default.linkItem(atPath: dir.path + "/tone.flac", toPath: "\(album)/\(index).flac") }
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", dir.path])
        let car = try Car(dir: dir, folders: [dir.path + "/music"])
        #expect(car.deckd.waitForLog("library: 400 tracks (400 read"), "\(car.deckd.log)")
        let row = try car.deckctl(["apps"]).split(separator: "\n").first { $0.hasPrefix("org.deck.library ") } ?? ""
        let words = row.split(separator: " ")
        let pid = try #require(words.firstIndex(of: "process").flatMap { words.indices.contains($0 + 1) ? Int(words[$0 + 1]) : nil }, "\(row)")
        func peakKiB() throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
            return try #require(line.split(separator: " ").dropFirst().first.flatMap { Int($0) }, "\(status)")
        }
        let before = try peakKiB()
        #expect(car.deckd.waitForLog("library: loudness measured for 400 tracks", seconds: 90), "\(car.deckd.log)")
        let after = try peakKiB()
        #expect(after - before < 24 << 10, "the host's peak grew from \(before) to \(after) KiB")
        #expect(!car.deckd.log.contains("crashed"), "\(car.deckd.log)")
        #expect(car.deckd.stop() == 0)
    }

    @Test func aRadioStationPlaysWithin1LUOfALibraryTrack() throws {
        let car = try LibraryTests.albumBesideAStation("Quiet FM", frequency: 550)
        try car.deckd.waitForFrames(50 * 5)
        _ = try car.deckctl(["launch", "org.deck.radio", "Quiet FM"])
        try car.deckd.waitForFrames(50 * 20, seconds: 30)
        #expect(car.deckd.stop() == 0)

        let output = car.dir.path + "/out.opus"
        let left = try AudioAnalysis.decodeWithFFmpeg(output).left
        let start = Double(left.firstIndex { abs($0) > 0.01 } ?? 0) / 48_000
        let track = try AudioAnalysis.integratedLoudness(output, start: start + 1, seconds: 3)
        let duration = Double(left.count) / 48_000
        let station = try AudioAnalysis.integratedLoudness(output, start: duration - 6, seconds: 5)
        #expect(abs(track - station) <= 1, "library track \(track) LUFS, station \(station) LUFS (about 11 LU quieter on air)")
    }
}
