import Synchronization

/// What happened to one stream on the audio thread, readable from the loop at any time.
public final class StreamCounters: Sendable {
    /// Frames the plugin rendered in full.
    public let renderedFrames = Atomic<Int>(0)
    /// Frames it under-delivered (padded with silence).
    public let underrunFrames = Atomic<Int>(0)
    /// Frames silenced because it wrote NaN or infinity.
    public let invalidFrames = Atomic<Int>(0)
    /// Frames in which it wrote samples beyond full scale (±1.0); the mix limits them.
    public let clippedFrames = Atomic<Int>(0)
    /// Frames in a row, up to now, that were silent (rendered or padded): a starving stream.
    public let silentRun = Atomic<Int>(0)

    public init() {}
}
