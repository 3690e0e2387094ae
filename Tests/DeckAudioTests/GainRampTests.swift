import Glibc
import Testing
@testable import DeckAudio

@Suite struct GainRampTests {
    /// Applies `ramp` to `frames` frames of constant 1.0 and returns the left channel: the gain curve.
    func curve(_ ramp: inout GainRamp, frames: Int) -> [Float] {
        var buffer = [Float](repeating: 1, count: frames * 2)
        buffer.withUnsafeMutableBufferPointer { ramp.apply(to: $0.baseAddress!, frames: frames) }
        return stride(from: 0, to: buffer.count, by: 2).map { buffer[$0] }
    }

    @Test func aLinearRampMovesInEqualStepsAndLandsOnTarget() {
        var ramp = GainRamp(1)
        ramp.ramp(to: 0.2, samples: 24_000, curve: .linear)
        let gains = curve(&ramp, frames: 30_000)
        let steps = zip(gains, gains.dropFirst()).map { $1 - $0 }
        #expect(steps[..<23_999].allSatisfy { abs($0 - (-0.8 / 24_000)) < 1e-6 })
        #expect(gains[23_999] == 0.2)
        #expect(gains[24_000...].allSatisfy { $0 == 0.2 })
        #expect(!ramp.isRamping)
    }

    @Test func anExponentialRampMovesInEqualDecibelSteps() {
        var ramp = GainRamp(1)
        let target = Float(pow(10, -14.0 / 20))  // −14 dB, the default duck
        ramp.ramp(to: target, samples: 24_000, curve: .exponential)
        let gains = curve(&ramp, frames: 24_000)
        let decibelSteps = zip(gains, gains.dropFirst()).map { 20 * log10(Double($1 / $0)) }
        let expected = -14.0 / 24_000
        #expect(decibelSteps[..<23_998].allSatisfy { abs($0 - expected) < 1e-5 })
        #expect(gains.last == target)
        // Halfway through the ramp the gain is −7 dB.
        #expect(abs(20 * log10(Double(gains[11_999])) - (-7)) < 0.01)
    }

    @Test func noStepIsLargerThanTheRampsSlope() {
        var ramp = GainRamp(0.2)
        ramp.ramp(to: 1, samples: 480, curve: .linear)
        let gains = curve(&ramp, frames: 960)
        let largest = zip(gains, gains.dropFirst()).map { abs($1 - $0) }.max()!
        #expect(largest <= 0.8 / 480 + 1e-6)
    }

    @Test func aRampOfZeroSamplesJumps() {
        var ramp = GainRamp(1)
        ramp.ramp(to: 0.5, samples: 0, curve: .exponential)
        #expect(curve(&ramp, frames: 4) == [0.5, 0.5, 0.5, 0.5])
    }

    @Test func anExponentialRampToSilenceEndsAtZero() {
        var ramp = GainRamp(1)
        ramp.ramp(to: 0, samples: 100, curve: .exponential)
        let gains = curve(&ramp, frames: 120)
        #expect(gains[99] == 0)
        #expect(gains[98] > 0 && gains[98] < 1.2e-5)
    }
}

extension GainRampTests {
    @Test func anSCurveStartsAndEndsFlatAndPassesHalfWayAtTheMiddle() {
        var ramp = GainRamp(0)
        ramp.ramp(to: 1, samples: 480, curve: .sCurve)
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 960)
        defer { buffer.deallocate() }
        buffer.update(repeating: 1, count: 960)
        ramp.apply(to: buffer, frames: 480)
        let left = stride(from: 0, to: 960, by: 2).map { buffer[$0] }
        #expect(zip(left, left.dropFirst()).allSatisfy { $1 >= $0 })
        #expect(abs(left[239] - 0.5) < 0.01)
        #expect(left[1] - left[0] < left[240] - left[239])  // flat at the start…
        #expect(left[479] - left[478] < left[240] - left[239])  // … and at the end
        #expect(left[479] == 1)
        #expect(!ramp.isRamping && !ramp.isSilent)
        ramp.ramp(to: 0, samples: 480, curve: .sCurve)
        buffer.update(repeating: 1, count: 960)
        ramp.apply(to: buffer, frames: 480)
        #expect(ramp.isSilent)
    }
}
