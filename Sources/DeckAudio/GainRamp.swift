import Glibc

/// A gain moving to a target over a number of samples, applied sample by sample so changes never
/// click. Linear ramps move the factor in equal steps; exponential ones in equal dB steps;
/// S-curves (raised cosine) start and end with zero slope, for the short fades at a stream's start
/// and end and at pauses, where a corner would click.
public struct GainRamp: BitwiseCopyable, Sendable {
    public enum Curve: BitwiseCopyable, Sendable { case linear, exponential, sCurve }

    /// Exponential ramps cannot reach 0: they go to −100 dB and then snap to silence.
    static let floor: Float = 1e-5

    public private(set) var current: Float
    public private(set) var target: Float
    private var start: Float = 0
    private var step: Float = 0
    /// The exponential ramp's running gain and factor, in Double so 24 000 multiplications do not drift.
    private var exponential: (gain: Double, factor: Double) = (1, 1)
    private var length = 0
    private var remaining = 0
    private var curve = Curve.linear

    public init(_ gain: Float) {
        current = gain
        target = gain
    }

    public var isRamping: Bool { remaining > 0 }

    /// At rest at one: `apply` would leave every sample as it is.
    var isUnity: Bool { remaining == 0 && current == 1 }

    /// At rest at zero: a paused stream, whose render need not be called.
    public var isSilent: Bool { remaining == 0 && current == 0 }

    /// Starts moving from the current gain to `target` over `samples` samples (0 jumps at once).
    public mutating func ramp(to target: Float, samples: Int, curve: Curve) {
        self.target = target
        self.curve = curve
        guard samples > 0, target != current else {
            current = target
            remaining = 0
            return
        }
        remaining = samples
        length = samples
        start = current
        switch curve {
        case .linear, .sCurve:
            step = (target - current) / Float(samples)
        case .exponential:
            let from = Double(max(current, GainRamp.floor)), to = Double(max(target, GainRamp.floor))
            current = Float(from)
            exponential = (from, Glibc.exp(Glibc.log(to / from) / Double(samples)))
        }
    }

    /// Multiplies `frames` interleaved stereo frames by the gain, advancing the ramp per frame.
    public mutating func apply(to buffer: UnsafeMutablePointer<Float>, frames: Int) {
        var index = 0
        if remaining == 0 {
            if isUnity { return }
            for i in 0..<(frames * 2) { buffer[i] *= current }
            return
        }
        for frame in 0..<frames {
            if remaining > 0 {
                remaining -= 1
                // Linear steps are computed from the start, so rounding never accumulates.
                switch curve {
                case .linear:
                    current = start + step * Float(length - remaining)
                case .sCurve:
                    let progress = Float(length - remaining) / Float(length)
                    current = start + step * Float(length) * (1 - Glibc.cosf(.pi * progress)) / 2
                case .exponential:
                    exponential.gain *= exponential.factor
                    current = Float(exponential.gain)
                }
                if remaining == 0 { current = target }
            }
            index = frame * 2
            buffer[index] *= current
            buffer[index + 1] *= current
        }
    }
}
