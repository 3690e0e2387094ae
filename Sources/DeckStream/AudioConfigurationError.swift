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
