import DeckStream

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
    /// The S-shaped fade at every start and stop of a stream and at the end of the output, so
    /// none clicks.
    public var declickMilliseconds = 10.0
    public var encoder = EncoderSettings()
    /// A frame not finished for this long means a plugin's render hangs: the watchdog names it,
    /// drops its stream and carries the output on in a fresh audio thread. Longer than a loaded
    /// machine's scheduling hiccups, short enough that a listener hears a gap, not silence.
    public var renderTimeoutMilliseconds = 200

    public init() {}

    /// Packets the ring between the audio thread and the loop holds.
    var packetRingCapacity: Int { max(8, Int((Double(packetBufferMilliseconds) / frameSize.milliseconds).rounded(.up))) }
}
