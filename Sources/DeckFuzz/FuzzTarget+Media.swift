import CFFmpeg
import Glibc
import MediaPlayback

extension FuzzTarget {
    /// The most audio one input is decoded for before and after its seek, in frames (2 s, 0.5 s).
    static let mediaFrames = (MediaSource.sampleRate * 2, MediaSource.sampleRate / 2)
    /// FFmpeg's warnings about each broken input would bury libFuzzer's report.
    static let quieted: Bool = {
        av_log_set_level(AV_LOG_QUIET)
        return true
    }()

    /// The bytes as a music file on a USB stick, read as the first-party apps read one: indexed
    /// (tags, length, cover), decoded, sought to where the first byte says, and measured.
    static func media(_ bytes: [UInt8]) {
        _ = FuzzTarget.quieted
        let path = "/tmp/deck-fuzz-media-\(getpid())"
        guard let file = fopen(path, "wb") else { return }
        let written = fwrite(bytes, 1, bytes.count, file)
        guard fclose(file) == 0, written == bytes.count else { return }
        defer { unlink(path) }
        _ = try? MediaSource(url: path, decode: false)
        if let source = try? MediaSource(url: path) {
            var samples = [Float](repeating: 0, count: 4_800 * 2)
            func decode(_ frames: Int) {
                var total = 0
                while total < frames, let count = try? samples.withUnsafeMutableBufferPointer({ buffer throws(MediaError) in
                    try source.read(into: buffer.baseAddress!, frames: min(4_800, frames - total))
                }), count > 0 {
                    if !samples[..<(count * 2)].allSatisfy({ $0.isFinite }) { fatalError("\(path) decoded to a sample that is not a number") }
                    total += count
                }
            }
            decode(mediaFrames.0)
            try? source.seek(to: Double(bytes.first ?? 0) / 10)
            decode(mediaFrames.1)
            _ = source.tagUpdates()
        }
        _ = LoudnessScan().measure(path)
    }
}
