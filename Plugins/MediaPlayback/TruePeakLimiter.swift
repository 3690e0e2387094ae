import Glibc

/// Keeps the true peak (the peak between samples, estimated by 4× oversampling as ITU-R BS.1770
/// describes) under −1 dBTP: a 1 ms look-ahead, a gain ramp that reaches each over's level exactly
/// at the over, and a 100 ms release. The audio is always delayed by `lookAhead` frames; the
/// detection runs only while `active` (gain is being added), since lowering a source makes no over.
/// Decode thread only.
final class TruePeakLimiter {
    static let ceiling = Float(pow(10, -1.0 / 20))
    static let lookAhead = 48
    static let taps = 12
    /// Windowed-sinc filters for the three points between two samples (¼, ½, ¾).
    static let phases: [Float] = (1...3).flatMap { phase in
        (0..<taps).map { tap in
            let x = Double(tap - taps / 2 + 1) - Double(phase) / 4
            let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
            let window = 0.5 + 0.5 * cos(Double.pi * x / Double(taps / 2 + 1))
            return Float(sinc * window)
        }
    }

    private let window = 2 * TruePeakLimiter.lookAhead + 1
    /// The gain each of the last `window` frames needs, the delayed audio, the filters' history.
    private let needed: UnsafeMutablePointer<Float>
    private let delayed: UnsafeMutablePointer<Float>
    private let history: UnsafeMutablePointer<Float>
    private let ramp: UnsafeMutablePointer<Float>
    private var rampSum: Float = 0
    private var position = 0
    /// The lowest needed gain in the window and how many frames ago it came.
    private var lowest: Float = 1
    private var lowestAge = 0
    private var gain: Float = 1
    private let release = Float(1 - exp(-1.0 / (0.1 * 48_000)))

    init() {
        needed = .allocate(capacity: window)
        delayed = .allocate(capacity: TruePeakLimiter.lookAhead * 2)
        history = .allocate(capacity: TruePeakLimiter.taps * 2)
        ramp = .allocate(capacity: TruePeakLimiter.lookAhead + 1)
        reset()
    }

    deinit {
        needed.deallocate()
        delayed.deallocate()
        history.deallocate()
        ramp.deallocate()
    }

    func reset() {
        needed.initialize(repeating: 1, count: window)
        delayed.initialize(repeating: 0, count: TruePeakLimiter.lookAhead * 2)
        history.initialize(repeating: 0, count: TruePeakLimiter.taps * 2)
        ramp.initialize(repeating: 1, count: TruePeakLimiter.lookAhead + 1)
        rampSum = Float(TruePeakLimiter.lookAhead + 1)
        lowest = 1
        lowestAge = 0
        gain = 1
        position = 0
    }

    /// Limits `frames` interleaved stereo frames in place (delayed by `lookAhead`).
    func process(_ samples: UnsafeMutablePointer<Float>, frames: Int, active: Bool) {
        let lookAhead = TruePeakLimiter.lookAhead, taps = TruePeakLimiter.taps
        for frame in 0..<frames {
            var required: Float = 1
            if active {
                var peak: Float = 0
                for channel in 0..<2 {
                    let line = history + channel * taps
                    line.update(from: line + 1, count: taps - 1)
                    line[taps - 1] = samples[frame * 2 + channel]
                    peak = max(peak, abs(line[taps - 1]), TruePeakLimiter.interpolatedPeak(line))
                }
                if peak > TruePeakLimiter.ceiling { required = TruePeakLimiter.ceiling / peak }
            }
            // The lowest gain needed within ±lookAhead frames, ramped in over lookAhead frames.
            let slot = position % window
            needed[slot] = required
            lowestAge += 1
            if required <= lowest {
                lowest = required
                lowestAge = 0
            } else if lowestAge >= window {
                lowest = 1
                for index in 0..<window where needed[index] < lowest { lowest = needed[index] }
                lowestAge = 0
            }
            let rampSlot = position % (lookAhead + 1)
            rampSum += lowest - ramp[rampSlot]
            ramp[rampSlot] = lowest
            let target = min(lowest, rampSum / Float(lookAhead + 1))
            gain = target < gain ? target : gain + (target - gain) * release
            let delay = (position % lookAhead) * 2
            let out = (delayed[delay], delayed[delay + 1])
            delayed[delay] = samples[frame * 2]
            delayed[delay + 1] = samples[frame * 2 + 1]
            samples[frame * 2] = out.0 * gain
            samples[frame * 2 + 1] = out.1 * gain
            position = position == Int.max ? 0 : position + 1
        }
    }

    /// The largest of the three points between the middle two samples of `line`.
    private static func interpolatedPeak(_ line: UnsafeMutablePointer<Float>) -> Float {
        var peak: Float = 0
        phases.withUnsafeBufferPointer { filters in
            for phase in 0..<3 {
                var sum: Float = 0
                for tap in 0..<taps { sum += line[tap] * filters[phase * taps + tap] }
                peak = max(peak, abs(sum))
            }
        }
        return peak
    }
}
