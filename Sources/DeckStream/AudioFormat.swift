/// Deck's one internal format: 48 kHz stereo, interleaved 32-bit float.
public enum AudioFormat {
    public static let sampleRate = 48_000
    public static let channels = 2
}

/// Samples per channel in one audio frame: the Opus frame sizes 2.5, 5, 10, 20, 40 and 60 ms.
public struct FrameSize: Sendable, Equatable, CustomStringConvertible {
    public let samples: Int

    public static let allowedMilliseconds: [Double] = [2.5, 5, 10, 20, 40, 60]

    public init(milliseconds: Double) throws(AudioConfigurationError) {
        guard FrameSize.allowedMilliseconds.contains(milliseconds) else { throw .frameSize(milliseconds) }
        samples = Int(milliseconds * 48)
    }

    public var milliseconds: Double { Double(samples) / 48 }
    public var nanoseconds: Int { samples * 1_000_000_000 / AudioFormat.sampleRate }
    public var description: String { milliseconds == milliseconds.rounded() ? "\(Int(milliseconds)) ms" : "\(milliseconds) ms" }
}
