import CEbur128
import DeckTestSupport
import Foundation
import MediaPlayback
import Testing

/// Loudness as the Library measures it: each track by libebur128, an album over its tracks' gating
/// blocks in a histogram of fixed size, against libebur128's own measure of the same files as one
/// programme (every state kept, every block exact).
@Suite struct LoudnessScanTests {
    /// A tone, pink noise fading 8.7 dB a second (its blocks spread over the histogram's bins),
    /// and one loud for 3 s then 40 dB down (its quiet half falls under the album's relative gate,
    /// which a mean of the tracks' loudness would not know), in `dir`.
    static func album(in dir: String) throws -> [String] {
        let sources = ["a.wav": "sine=f=440:r=48000:d=4,volume=-6dB",
                       "b.flac": "anoisesrc=c=pink:r=48000:a=0.3:d=8:s=7,volume='exp(-t)':eval=frame",
                       "c.wav": "aevalsrc=0.3*sin(2*PI*300*t)*if(lt(t\\,3)\\,1\\,0.01):s=48000:d=6"]
        return try sources.keys.sorted().map { name in
            let result = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", sources[name]!, "-ac", "2", dir + "/" + name])
            try #require(result.status == 0, "\(result.output)")
            return dir + "/" + name
        }
    }

    /// libebur128 over `paths` as one programme, decoded by the same MediaSource, in its exact mode.
    static func reference(_ paths: [String]) throws -> (tracks: [Double], album: Double) {
        var states: [UnsafeMutablePointer<ebur128_state>?] = []
        defer { for index in states.indices { ebur128_destroy(&states[index]) } }
        var tracks: [Double] = []
        for path in paths {
            let source = try MediaSource(url: path)
            let state = try #require(ebur128_init(2, UInt(MediaSource.sampleRate), Int32(EBUR128_MODE_I.rawValue)))
            states.append(state)
            var buffer = [Float](repeating: 0, count: 4096 * 2)
            while case let frames = try buffer.withUnsafeMutableBufferPointer({ try source.read(into: $0.baseAddress!, frames: 4096) }), frames > 0 {
                ebur128_add_frames_float(state, buffer, frames)
            }
            var loudness = 0.0
            #expect(ebur128_loudness_global(state, &loudness) == 0)
            tracks.append(loudness)
        }
        var album = 0.0
        #expect(ebur128_loudness_global_multiple(&states, states.count, &album) == 0)
        return (tracks, album)
    }

    @Test func anAlbumMeasuresAsOneProgrammeWithin0_05LUOfLibebur128() throws {
        let dir = TemporaryDirectory()
        let files = try LoudnessScanTests.album(in: dir.path)
        let reference = try LoudnessScanTests.reference(files)
        let scan = LoudnessScan()
        for (path, expected) in zip(files, reference.tracks) {
            let measured = try #require(scan.measure(path), "\(path)")
            #expect(abs(measured - expected) < 0.05, "\(path): \(measured) against \(expected) LUFS")
        }
        let album = try #require(scan.albumLoudness)
        #expect(abs(album - reference.album) < 0.05, "\(album) against \(reference.album) LUFS")
        // The quiet half of c.wav is gated out: the album is not the energy mean of its tracks.
        let mean = 10 * log10(reference.tracks.map { pow(10, $0 / 10) }.reduce(0, +) / 3)
        #expect(abs(album - mean) > 0.5, "album \(album), mean of tracks \(mean)")
    }

    @Test func silentAndUnreadableFilesAreNotPartOfTheAlbum() throws {
        let folder = TemporaryDirectory(), dir = folder.path
        let album = try LoudnessScanTests.album(in: dir)
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", "2", dir + "/silence.wav"])
        try "not audio".write(toFile: dir + "/text.mp3", atomically: true, encoding: .utf8)
        let scan = LoudnessScan()
        #expect(scan.measure(dir + "/silence.wav") == nil)
        #expect(scan.measure(dir + "/text.mp3") == nil)
        #expect(scan.albumLoudness == nil)
        let loud = try #require(scan.measure(album[0]))
        #expect(abs(try #require(scan.albumLoudness) - loud) < 0.05)
    }
}
