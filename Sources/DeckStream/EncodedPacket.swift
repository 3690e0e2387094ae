/// One Opus packet on its way from the audio thread to the sinks.
public struct EncodedPacket: Sendable, Equatable {
    public var bytes: [UInt8]
    /// Index of the packet's first sample since the output started (48 kHz, per channel).
    public var sampleIndex: Int64
    /// Samples per channel the packet covers.
    public var samples: Int
    /// Whether this packet ends the stream.
    public var isLast: Bool
    /// For the last packet: the samples of real audio in the whole stream plus the pre-skip, which
    /// may be less than the samples encoded (the end trimming an Ogg decoder applies).
    public var finalGranule: Int64?
    /// The encoder's delay, which an Ogg stream announces as pre-skip.
    public var preSkip: Int
    /// The mix (bus) the packet encodes; each sink takes the packets of one bus.
    public var bus: Int
    /// The routing in force when the packet was encoded: which sink takes which bus.
    public var generation: Int
    /// When the audio thread encoded it (CLOCK_MONOTONIC, nanoseconds), for latency measurements.
    public var encodedAt: Int

    public init(bytes: [UInt8], sampleIndex: Int64, samples: Int, isLast: Bool, finalGranule: Int64?, preSkip: Int,
                bus: Int = 0, generation: Int = 0, encodedAt: Int = 0) {
        self.bytes = bytes
        self.sampleIndex = sampleIndex
        self.samples = samples
        self.isLast = isLast
        self.finalGranule = finalGranule
        self.preSkip = preSkip
        self.bus = bus
        self.generation = generation
        self.encodedAt = encodedAt
    }

    /// The Ogg granule position after this packet, counted from `origin` (the first sample a sink saw).
    public func granule(from origin: Int64 = 0) -> Int64 {
        (finalGranule ?? (sampleIndex + Int64(samples))) - origin
    }
}
