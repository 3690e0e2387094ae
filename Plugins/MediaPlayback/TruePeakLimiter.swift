import Glibc

/// Keeps the true peak (the peak between samples, estimated by 4× oversampling as ITU-R BS.1770
/// describes) under −1 dBTP: a 1 ms look-ahead, a gain ramp that reaches each over's level exactly
/// at the over, and a 100 ms release. Delays the audio by `lookAhead` frames. Decode thread only.
final class TruePeakLimiter {
    static let ceiling = Float(pow(10, -1.0 / 20))
    let lookAhead = 48
    /// The last 2 × lookAhead + 1 frames' needed gains and the delayed audio.
    private var needed: [Float]
    private var delayed: [Float]
    /// The last `taps` input samples per channel, for the oversampling filter.
    private var history: [[Float]] = [[Float](repeating: 0, count: TruePeakLimiter.taps), [Float](repeating: 0, count: TruePeakLimiter.taps)]
    private var position = 0
    private var average: [Float]
    private var averageSum: Float
    private var gain: Float = 1
    private let release = Float(1 - exp(-1.0 / (0.1 * 48_000)))

    static let taps = 12
    /// Windowed-sinc filters for the three points between two samples (¼, ½, ¾).
    static let phases: [[Float]] = (1...3).map { phase in
        (0..<taps).map { tap in
            let x = Double(tap - taps / 2 + 1) - Double(phase) / 4
            let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
            let window = 0.5 + 0.5 * cos(Double.pi * x / Double(taps / 2 + 1))
            return Float(sinc * window)
        }
    }

    init() {
        needed = [Float](repeating: 1, count: 2 * lookAhead + 1)
        delayed = [Float](repeating: 0, count: lookAhead * 2)
        average = [Float](repeating: 1, count: lookAhead + 1)
        averageSum = Float(lookAhead + 1)
    }

    func reset() {
        for index in needed.indices { needed[index] = 1 }
        for index in delayed.indices { delayed[index] = 0 }
        for index in average.indices { average[index] = 1 }
        for channel in 0..<2 { for index in history[channel].indices { history[channel][index] = 0 } }
        averageSum = Float(average.count)
        gain = 1
    }

    /// Limits `frames` interleaved stereo frames in place (delayed by `lookAhead`).
    func process(_ samples: UnsafeMutablePointer<Float>, frames: Int) {
        for frame in 0..<frames {
            var peak: Float = 0
            for channel in 0..<2 {
                let sample = samples[frame * 2 + channel]
                history[channel].removeFirst()
                history[channel].append(sample)
                peak = max(peak, abs(sample), truePeak(history[channel]))
            }
            // The gain this frame needs, the lowest needed within ±lookAhead, ramped in over lookAhead.
            needed[position % needed.count] = peak > TruePeakLimiter.ceiling ? TruePeakLimiter.ceiling / peak : 1
            let lowest = needed.min() ?? 1
            let slot = position % average.count
            averageSum += lowest - average[slot]
            average[slot] = lowest
            let ramped = min(lowest, averageSum / Float(average.count))
            gain = ramped < gain ? ramped : gain + (ramped - gain) * release
            let delay = position % lookAhead
            let out = (delayed[delay * 2], delayed[delay * 2 + 1])
            delayed[delay * 2] = samples[frame * 2]
            delayed[delay * 2 + 1] = samples[frame * 2 + 1]
            samples[frame * 2] = out.0 * gain
            samples[frame * 2 + 1] = out.1 * gain
            position &+= 1
            if position == Int.max / 2 { position = 0 }
        }
    }

    /// The largest of the three points between the middle two samples of `window`.
    private func truePeak(_ window: [Float]) -> Float {
        var peak: Float = 0
        for filter in TruePeakLimiter.phases {
            var sum: Float = 0
            for tap in 0..<TruePeakLimiter.taps { sum += window[tap] * filter[tap] }
            peak = max(peak, abs(sum))
        }
        return peak
    }
}
