import CEbur128

/// The integrated loudness (EBU R128, LUFS) of whole files and of albums, measured by decoding
/// them through libebur128. Runs on the caller's thread (a scan's), never the loop's.
public final class LoudnessScan {
    private var meters: [UnsafeMutablePointer<ebur128_state>?] = []

    public init() {}

    deinit {
        for index in meters.indices { ebur128_destroy(&meters[index]) }
    }

    /// Measures the file at `path` (kept for `albumLoudness`); nil when it is silent or unreadable.
    public func measure(_ path: String, cancellation: Cancellation = Cancellation()) -> Double? {
        guard let source = try? MediaSource(url: path, cancellation: cancellation),
              let meter = ebur128_init(2, UInt(MediaSource.sampleRate), Int32(EBUR128_MODE_I.rawValue)) else { return nil }
        var buffer = [Float](repeating: 0, count: 4096 * 2)
        while let frames = try? buffer.withUnsafeMutableBufferPointer({ pointer throws(MediaError) in
            try source.read(into: pointer.baseAddress!, frames: 4096)
        }), frames > 0 {
            ebur128_add_frames_float(meter, buffer, frames)
        }
        var loudness = 0.0
        guard ebur128_loudness_global(meter, &loudness) == 0, loudness.isFinite, loudness > -70 else {
            var discarded: UnsafeMutablePointer<ebur128_state>? = meter
            ebur128_destroy(&discarded)
            return nil
        }
        meters.append(meter)
        return loudness
    }

    /// The integrated loudness of everything measured so far, as one programme (an album's gain).
    public var albumLoudness: Double? {
        guard !meters.isEmpty else { return nil }
        var loudness = 0.0
        var states = meters
        guard ebur128_loudness_global_multiple(&states, states.count, &loudness) == 0, loudness.isFinite, loudness > -70 else { return nil }
        return loudness
    }
}
