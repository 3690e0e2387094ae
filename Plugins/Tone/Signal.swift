import Glibc

/// One of Tone's test signals, chosen by item id, rendering at 48 kHz stereo at −12 dBFS.
///
/// Items: `stereo-L-R` (a sine of L Hz left, R Hz right), `sine-F` (F Hz both sides), `sweep`
/// (20 Hz → 20 kHz, logarithmic, 10 s, repeating), `pink-noise`, `silence`.
struct Signal {
    enum Kind: Equatable {
        case sines(left: Double, right: Double)
        case sweep
        case pinkNoise
        case silence
    }

    static let defaultItem = "stereo-440-660"
    static let amplitude: Float = 0.25
    static let sampleRate = 48_000.0
    static let sweepSeconds = 10.0

    let kind: Kind
    private var phase = (left: 0.0, right: 0.0)
    private var sweepPosition = 0.0
    private var random: UInt64 = 0x9E37_79B9_7F4A_7C15
    private var pink = (b0: Float(0), b1: Float(0), b2: Float(0), b3: Float(0), b4: Float(0), b5: Float(0), b6: Float(0))

    /// The signal for `item`, or nil when Tone does not know it.
    init?(item: String) {
        let parts = item.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        func frequency(_ text: String) -> Double? {
            guard let value = Double(text), value >= 1, value < Signal.sampleRate / 2 else { return nil }
            return value
        }
        switch (parts.first, parts.count) {
        case ("stereo", 3):
            guard let left = frequency(parts[1]), let right = frequency(parts[2]) else { return nil }
            kind = .sines(left: left, right: right)
        case ("sine", 2):
            guard let both = frequency(parts[1]) else { return nil }
            kind = .sines(left: both, right: both)
        case ("sweep", 1): kind = .sweep
        case ("pink", 2) where parts[1] == "noise": kind = .pinkNoise
        case ("silence", 1): kind = .silence
        default: return nil
        }
    }

    /// The signals Tone queues, in order.
    static let playlist = ["stereo-440-660", "sine-1000", "sweep", "pink-noise", "silence"]

    /// How the signal is shown in now playing.
    var title: String {
        switch kind {
        case .sines(let left, let right) where left == right: "Sine \(Int(left)) Hz"
        case .sines(let left, let right): "Stereo \(Int(left)) Hz left, \(Int(right)) Hz right"
        case .sweep: "Sweep 20 Hz to 20 kHz"
        case .pinkNoise: "Pink noise"
        case .silence: "Silence"
        }
    }

    /// Seconds for a signal that ends (one pass of the sweep); nil for the endless ones.
    var duration: Double? { kind == .sweep ? Signal.sweepSeconds : nil }

    /// Moves a sweep to `seconds` into its pass (other signals have no position to move).
    mutating func seek(to seconds: Double) {
        sweepPosition = (seconds * Signal.sampleRate).truncatingRemainder(dividingBy: Signal.sweepSeconds * Signal.sampleRate)
    }

    /// Fills `frames` interleaved stereo frames; true when a sweep pass ended in them. Audio
    /// thread: no allocation.
    @discardableResult
    mutating func render(frames: Int, into out: UnsafeMutablePointer<Float>) -> Bool {
        var ended = false
        switch kind {
        case .sines(let left, let right):
            let stepLeft = 2 * Double.pi * left / Signal.sampleRate, stepRight = 2 * Double.pi * right / Signal.sampleRate
            for frame in 0..<frames {
                out[frame * 2] = Signal.amplitude * Float(sin(phase.left))
                out[frame * 2 + 1] = Signal.amplitude * Float(sin(phase.right))
                phase.left = Signal.wrap(phase.left + stepLeft)
                phase.right = Signal.wrap(phase.right + stepRight)
            }
        case .sweep:
            let rate = log(20_000.0 / 20.0) / (Signal.sweepSeconds * Signal.sampleRate)
            for frame in 0..<frames {
                let frequency = 20 * exp(rate * sweepPosition)
                let sample = Signal.amplitude * Float(sin(phase.left))
                out[frame * 2] = sample
                out[frame * 2 + 1] = sample
                phase.left = Signal.wrap(phase.left + 2 * Double.pi * frequency / Signal.sampleRate)
                sweepPosition += 1
                if sweepPosition >= Signal.sweepSeconds * Signal.sampleRate {
                    sweepPosition = 0
                    ended = true
                }
            }
        case .pinkNoise:
            for frame in 0..<frames {
                let sample = nextPink()
                out[frame * 2] = sample
                out[frame * 2 + 1] = sample
            }
        case .silence:
            out.update(repeating: 0, count: frames * 2)
        }
        return ended
    }

    /// Keeps a phase in [0, 2π) without fmod (steps are always below 2π).
    private static func wrap(_ phase: Double) -> Double { phase >= 2 * Double.pi ? phase - 2 * Double.pi : phase }

    /// Paul Kellet's refined pink filter over xorshift white noise.
    private mutating func nextPink() -> Float {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        let white = Float(Int64(bitPattern: random) >> 11) / Float(1 << 52)
        pink.b0 = 0.99886 * pink.b0 + white * 0.0555179
        pink.b1 = 0.99332 * pink.b1 + white * 0.0750759
        pink.b2 = 0.96900 * pink.b2 + white * 0.1538520
        pink.b3 = 0.86650 * pink.b3 + white * 0.3104856
        pink.b4 = 0.55000 * pink.b4 + white * 0.5329522
        pink.b5 = -0.7616 * pink.b5 - white * 0.0168980
        let value = pink.b0 + pink.b1 + pink.b2 + pink.b3 + pink.b4 + pink.b5 + pink.b6 + white * 0.5362
        pink.b6 = white * 0.115926
        return Signal.amplitude * value * 0.11
    }
}
