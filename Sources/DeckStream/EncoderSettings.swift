/// Opus encoder settings, from `deckd` config's "encoder" object.
///
///     {"bitrate": 128000, "complexity": 10, "frameMs": 20, "application": "audio",
///      "fec": false, "packetLoss": 0, "dtx": false}
public struct EncoderSettings: Sendable, Equatable {
    public enum Application: String, Sendable, CaseIterable {
        case audio, lowdelay, voip
    }

    /// Bits per second for both channels together (6000 to 510000).
    public var bitrate = 128_000
    /// 0 (fastest) to 10 (best).
    public var complexity = 10
    public var application = Application.audio
    /// In-band forward error correction: lets a receiver rebuild a lost packet from the next one.
    public var inbandFEC = false
    /// The packet loss the encoder plans for, in percent; FEC only helps when this is above 0.
    public var expectedPacketLoss = 0
    /// Discontinuous transmission: near-silent frames become tiny packets (RTP does not send them).
    public var dtx = false

    public init() {}

    public func validate() throws(AudioConfigurationError) {
        guard (6_000...510_000).contains(bitrate) else { throw .bitrate(bitrate) }
        guard (0...10).contains(complexity) else { throw .complexity(complexity) }
        guard (0...100).contains(expectedPacketLoss) else { throw .packetLoss(expectedPacketLoss) }
    }
}
