import CEbur128

/// The integrated loudness (EBU R128, LUFS) of whole files and of albums, measured by decoding
/// them through libebur128's K-weighting. Runs on the caller's thread (a scan's), never the
/// loop's. An album keeps only a `LoudnessHistogram` of its tracks' gating blocks: 16 KB however
/// many tracks it has.
public final class LoudnessScan {
    private var album = LoudnessHistogram()

    public init() {}

    /// Measures the file at `path` (its blocks kept for `albumLoudness`); nil when it is silent or
    /// unreadable.
    public func measure(_ path: String, cancellation: Cancellation = Cancellation()) -> Double? {
        guard let source = try? MediaSource(url: path, cancellation: cancellation),
              let meter = ebur128_init(2, UInt(MediaSource.sampleRate), Int32(EBUR128_MODE_M.rawValue)) else { return nil }
        defer { var owned: UnsafeMutablePointer<ebur128_state>? = meter; ebur128_destroy(&owned) }
        // Fed 100 ms at a time, the meter's momentary loudness after each hop from the fourth on
        // is BS.1770's next gating block (400 ms, 75% overlap): the track and its album are gated
        // over those.
        let hop = MediaSource.sampleRate / 10
        var buffer = [Float](repeating: 0, count: hop * 2)
        var track = LoudnessHistogram(), hops = 0
        while let frames = try? buffer.withUnsafeMutableBufferPointer({ pointer throws(MediaError) in
            try source.read(into: pointer.baseAddress!, frames: hop)
        }), frames == hop {
            ebur128_add_frames_float(meter, buffer, frames)
            hops += 1
            var momentary = 0.0
            if hops >= 4, ebur128_loudness_momentary(meter, &momentary) == 0 { track.add(loudness: momentary) }
        }
        guard let loudness = track.integratedLoudness else { return nil }
        album.merge(track)
        return loudness
    }

    /// The integrated loudness of everything measured so far, as one programme (an album's gain).
    public var albumLoudness: Double? { album.integratedLoudness }
}
