import CEbur128
import Glibc

/// Brings a source to one loudness target (EBU R128, LUFS): a fixed gain when its loudness is
/// known (a measured or tagged track or album), else a slowly adapting one from libebur128's
/// short-term loudness (a radio station); a true-peak limiter runs wherever gain is added.
/// Used by the decode thread only.
public final class LoudnessNormalizer {
    public static let defaultTarget = -18.0
    /// The most a source is raised or lowered, in dB.
    static let gainRange = -20.0...12.0
    /// How fast the adapting gain may move, in dB a second: quickly while a new source settles
    /// (its first 10 s), then slowly, so it never pumps.
    static let settlingDBPerSecond = 3.0
    static let slewDBPerSecond = 0.5
    /// The adapting estimate's time constant, in seconds.
    static let adaptSeconds = 20.0
    /// How long a new source settles on the gated integrated loudness before the short-term one.
    static let settlingSeconds = 10

    public let target: Double
    private var meter: UnsafeMutablePointer<ebur128_state>?
    private var known: Double?
    /// The adapting estimate of the source's loudness (LUFS), and frames since the last reading.
    private var estimate: Double?
    private var sinceReading = 0
    private var measuredFrames = 0
    /// The gain applied now, in dB, and where it is heading.
    public private(set) var gain = 0.0
    private var goal = 0.0
    private let limiter = TruePeakLimiter()

    public init(target: Double = LoudnessNormalizer.defaultTarget) {
        self.target = target
        meter = LoudnessNormalizer.makeMeter()
    }

    /// A short-term and integrated meter whose integration keeps the settling time only: the
    /// blocks of a station played for hours would otherwise pile up (1.2 MB an hour), and the
    /// integrated loudness is read while it settles only.
    static func makeMeter() -> UnsafeMutablePointer<ebur128_state>? {
        let meter = ebur128_init(2, UInt(MediaSource.sampleRate), Int32(EBUR128_MODE_S.rawValue | EBUR128_MODE_I.rawValue))
        if let meter { ebur128_set_max_history(meter, UInt(settlingSeconds * 1_000)) }
        return meter
    }

    deinit { ebur128_destroy(&meter) }

    /// A new source begins: `loudness` (LUFS) when known, nil to adapt; `seed` is a previous
    /// estimate of this source (a station heard before), used until it is measured again.
    /// `continuing`: it follows the last one without a gap (the limiter keeps its delay line).
    public func begin(loudness: Double?, seed: Double? = nil, continuing: Bool = false) {
        if !continuing { limiter.reset() }
        let level = loudness.flatMap { $0.isFinite && (-70.0...0).contains($0) ? $0 : nil }
        // Tracks not measured yet that follow one another adapt as one programme: no jump between them.
        if continuing, level == nil, known == nil { return }
        known = level
        estimate = known == nil ? seed.flatMap { $0.isFinite && (-70.0...0).contains($0) ? $0 : nil } : nil
        sinceReading = 0
        measuredFrames = 0
        ebur128_destroy(&meter)
        meter = LoudnessNormalizer.makeMeter()
        goal = gainFor(known ?? estimate)
        gain = goal
    }

    /// The adapting estimate (LUFS), to keep for the next time this source plays.
    public var currentEstimate: Double? { estimate }

    /// Applies the gain (and the limiter) to `frames` interleaved stereo frames in place.
    public func process(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
        guard frames > 0 else { return }
        if known == nil { adapt(samples, frames: frames) }
        let settling = known == nil && measuredFrames < MediaSource.sampleRate * LoudnessNormalizer.settlingSeconds
        let step = (settling ? LoudnessNormalizer.settlingDBPerSecond : LoudnessNormalizer.slewDBPerSecond) * Double(frames) / Double(MediaSource.sampleRate)
        let next = gain + max(-step, min(step, goal - gain))
        let from = Float(pow(10, gain / 20)), to = Float(pow(10, next / 20))
        for frame in 0..<frames {
            let factor = from + (to - from) * Float(frame) / Float(frames)
            samples[frame * 2] *= factor
            samples[frame * 2 + 1] *= factor
        }
        gain = next
        limiter.process(samples, frames: frames, active: gain > 0 || goal > 0)
    }

    private func adapt(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
        guard let meter else { return }
        ebur128_add_frames_float(meter, samples, frames)
        sinceReading += frames
        measuredFrames += frames
        let reading = MediaSource.sampleRate * 2 / 5  // every 400 ms
        guard sinceReading >= reading else { return }
        let seconds = Double(sinceReading) / Double(MediaSource.sampleRate)
        sinceReading = 0
        var shortTerm = 0.0, integrated = 0.0
        if measuredFrames < MediaSource.sampleRate * LoudnessNormalizer.settlingSeconds {
            // The first seconds: the gated integrated loudness, which settles fast and ignores silence.
            guard ebur128_loudness_global(meter, &integrated) == 0 else { return }
            if integrated.isFinite, integrated > -70 { estimate = estimate.map { ($0 + integrated) / 2 } ?? integrated }
        } else if ebur128_loudness_shortterm(meter, &shortTerm) == 0, shortTerm.isFinite, shortTerm > -50 {
            let weight = seconds / LoudnessNormalizer.adaptSeconds
            estimate = estimate.map { $0 + (shortTerm - $0) * weight } ?? shortTerm
        }
        goal = gainFor(estimate)
    }

    private func gainFor(_ loudness: Double?) -> Double {
        guard let loudness else { return 0 }
        return min(max(target - loudness, LoudnessNormalizer.gainRange.lowerBound), LoudnessNormalizer.gainRange.upperBound)
    }
}
