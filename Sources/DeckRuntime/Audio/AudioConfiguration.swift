/// How the audio thread runs and what the encoder makes of its output.
public struct AudioConfiguration: Sendable, Equatable {
    public var frameSize = try! FrameSize(milliseconds: 20)
    /// Run unpaced, as fast as the machine allows (rendering to a file, tests, benchmarks).
    public var freewheel = false
    /// Stop after this many samples per channel have been produced; nil runs until stopped.
    public var durationSamples: Int?
    /// Falling behind by more than this resynchronises the clock and counts a late event.
    public var lateBoundNanoseconds = 50_000_000
    /// How much encoded audio waits for the loop before packets are dropped: the longest the loop
    /// may stall (a loaded machine, a slow client) without a hole in the stream.
    public var packetBufferMilliseconds = 10_000
    public var encoder = EncoderSettings()

    public init() {}

    /// Packets the ring between the audio thread and the loop holds.
    var packetRingCapacity: Int { max(8, Int((Double(packetBufferMilliseconds) / frameSize.milliseconds).rounded(.up))) }
}

/// A setting the audio engine or encoder cannot take; the message names the value and the range.
public enum AudioConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case frameSize(Double)
    case bitrate(Int)
    case complexity(Int)
    case application(String)
    case packetLoss(Int)
    case duration(Double)
    case encoder(String)

    public var description: String {
        switch self {
        case .frameSize(let ms):
            "frame size \(ms) ms is not an Opus frame size (2.5, 5, 10, 20, 40 or 60)"
        case .bitrate(let bps): "bitrate \(bps) is out of range (6000 to 510000 bits/s)"
        case .complexity(let value): "complexity \(value) is out of range (0 to 10)"
        case .application(let name): "application \"\(name)\" is not one of audio, lowdelay, voip"
        case .packetLoss(let value): "expected packet loss \(value)% is out of range (0 to 100)"
        case .duration(let seconds): "duration \(seconds) s must be a positive number of seconds"
        case .encoder(let message): "the Opus encoder refused the settings: \(message)"
        }
    }
}
