import DeckTestSupport
import Foundation
@testable import MediaPlayback
import Testing

/// What a file decodes to, whatever it holds.
@Suite struct MediaSourceTests {
    let dir = TemporaryDirectory()

    /// A WAV (48 kHz stereo) of `samples`, interleaved, as 32-bit floats (format 3) or marked with
    /// another `format`.
    private func floatWAV(_ samples: [Float], format: UInt16 = 3) throws -> String {
        let path = dir.path + "/\(format).wav"
        try WAVFile.writeFloat(samples, format: format, to: path)
        return path
    }

    @Test func samplesThatAreNotNumbersDecodeAsSilenceAndTheRestUnchanged() throws {
        var samples = (0..<48_000).map { Float(0.5 * sin(Double($0 / 2) * 2 * .pi * 440 / 48_000)) }
        let damaged = [1_000: Float.nan, 1_001: .infinity, 20_000: -.infinity, 30_001: .signalingNaN]
        for (index, value) in damaged { samples[index] = value }
        let source = try MediaSource(url: try floatWAV(samples))
        var decoded = [Float](repeating: 1, count: 48_000)
        let frames = try decoded.withUnsafeMutableBufferPointer { try source.read(into: $0.baseAddress!, frames: 24_000) }
        #expect(frames == 24_000)
        #expect(decoded.allSatisfy { $0.isFinite })
        #expect(damaged.keys.allSatisfy { decoded[$0] == 0 })
        #expect(decoded.indices.filter { damaged[$0] == nil && decoded[$0] != samples[$0] }.isEmpty, "the rest is as the file has it")
    }

    /// ICY titles come as the station sends them, often ISO 8859-1.
    @Test(arguments: [([0x42, 0x65, 0x79, 0x6F, 0x6E, 0x63, 0xC3, 0xA9], "Beyoncé"), ([0x42, 0x65, 0x79, 0x6F, 0x6E, 0x63, 0xE9], "Beyoncé"),
                      ([0x53, 0x69, 0x67, 0x75, 0x72, 0x20, 0xD3, 0x73], "Sigur Ós"), ([], "")])
    func aTagIsReadAsUTF8WhenItIsAndAsLatin1Otherwise(bytes: [UInt8], text: String) {
        #expect(bytes.withUnsafeBytes { MediaSource.tagText($0) } == text)
    }

    /// Now playing takes texts of up to 1,024 bytes: a longer tag is cut there, between characters.
    @Test func aTagLongerThanNowPlayingTakesIsCutBetweenCharacters() throws {
        let path = dir.path + "/long.flac"
        let title = String(repeating: "楽章", count: 200), album = String(repeating: "a", count: 1_024)
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=0.1",
                                               "-metadata", "title=\(title)", "-metadata", "album=\(album)", path])
        let tags = try MediaSource(url: path, decode: false).tags
        #expect(tags["title"] == String(title.prefix(341)), "341 characters of 3 bytes: 1,023 bytes")
        #expect(tags["album"] == album, "a tag of 1,024 bytes is whole")
    }

    /// Opening a file has a deadline: one FFmpeg would read to its end looking for audio (a
    /// damaged file of gigabytes, on a slow stick) is given up on. A budget of 0 s stands in for
    /// such a file here; the default lets a sound file open.
    @Test func aFileThatTakesLongerThanItsBudgetToOpenIsRefusedSayingSo() throws {
        let path = try floatWAV([Float](repeating: 0, count: 960))
        #expect(throws: MediaError.refused(path, "FFmpeg read it for 0 s without finding its audio: a damaged file, or not music")) {
            try MediaSource(url: path, decode: false, openSeconds: 0)
        }
        #expect(try MediaSource(url: path).duration != nil)
    }

    /// A WAV of 246 bytes (found by `make fuzz`) whose INFO chunk claims 4 GB had FFmpeg allocate
    /// and zero 1.6 GB for its tags; FFmpeg's allocations are held to 64 MB each, so opening it
    /// costs the process little.
    @Test func aTinyFileClaimingGigabytesOfTagsCostsLittleMemory() throws {
        let path = dir.path + "/claims.wav"
        try Data(contentsOf: URL(fileURLWithPath: Paths.repoRoot + "/Tests/Fuzz/corpus/media/oom-wav-info-chunk-claiming-4gb"))
            .write(to: URL(fileURLWithPath: path))
        func peakKiB() throws -> Int {
            let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
            return try #require(Int(line.dropFirst("VmHWM:".count).split(whereSeparator: \.isWhitespace).first ?? ""))
        }
        let before = try peakKiB()
        _ = try? MediaSource(url: path, decode: false)
        _ = try? MediaSource(url: path)
        let growth = try peakKiB() - before
        #expect(growth < 256 << 10, "the process's peak grew by \(growth) KiB")
    }

    @Test func aFileInACodecWithoutDecoderIsRefusedWithItsNameAndItsTagsStillRead() throws {
        let path = try floatWAV([Float](repeating: 0, count: 960), format: 0x7777)
        #expect(throws: MediaError.decoder("FFmpeg has no decoder for an unknown audio format (tag 0x7777)")) { try MediaSource(url: path) }
        #expect(try MediaSource(url: path, decode: false).duration != nil, "indexing does not decode")
    }

    @Test func aFileThatIsALivePlaylistIsRefusedAtOnceNotWaitedFor() throws {
        let path = dir.path + "/song.mp3"
        try "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nsegment.ts\n".write(toFile: path, atomically: false, encoding: .utf8)
        try Data(count: 4096).write(to: URL(fileURLWithPath: dir.path + "/segment.ts"))
        let cancellation = Cancellation(), started = Date()
        let watchdog = Thread { Thread.sleep(forTimeInterval: 5); cancellation.cancel() }
        watchdog.start()
        #expect(throws: MediaError.refused(path, "not a FLAC, Ogg, MP3, MP4/M4A, AAC, WAV, WavPack, APE, Matroska or AIFF file that FFmpeg can read")) {
            try MediaSource(url: path, decode: false, cancellation: cancellation)
        }
        #expect(Date().timeIntervalSince(started) < 1)
    }

    /// Each kind of file the Library lists (but APE, which ffmpeg cannot write), as ffmpeg writes
    /// it: the demuxers a file may be read with leave none out.
    @Test(arguments: [("flac", ["-c:a", "flac"]), ("ogg", ["-c:a", "libvorbis"]), ("oga", ["-c:a", "flac", "-f", "ogg"]),
                      ("opus", ["-c:a", "libopus"]), ("mp3", ["-c:a", "libmp3lame"]), ("m4a", ["-c:a", "alac"]), ("aac", ["-c:a", "aac"]),
                      ("mp4", ["-c:a", "aac"]), ("wav", ["-c:a", "pcm_f32le", "-rf64", "always"]), ("wv", ["-c:a", "wavpack"]),
                      ("mka", ["-c:a", "libvorbis"]), ("aiff", ["-c:a", "pcm_s16be"]), ("aif", ["-c:a", "pcm_s16be", "-f", "aiff"])])
    func everyKindOfMusicFileOpensAndDecodes(name: String, codec: [String]) throws {
        let path = dir.path + "/tone." + name
        let made = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=0.5"] + codec + [path])
        try #require(made.status == 0, "\(made.output)")
        let source = try MediaSource(url: path)
        var samples = [Float](repeating: 0, count: 9_600)
        let frames = try samples.withUnsafeMutableBufferPointer { try source.read(into: $0.baseAddress!, frames: 4_800) }
        #expect(frames == 4_800 && samples.contains { abs($0) > 0.01 })
    }
}
