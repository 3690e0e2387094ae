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
    /// Frames holding denormal (subnormal) samples: numbers that slow down every stage that
    /// touches them on many CPUs, and that a plugin should flush to zero.
    public let subnormalFrames = Atomic<Int>(0)
    /// Whether the audio thread times its render calls: inline, where they are its code (in a
    /// host process the audio thread only reads its ring).
    public let timesRender: Bool
    /// How long each of its render calls took (10 µs buckets up to a 20 ms frame), when timed.
    public let renderTimes: LatencyHistogram
    /// Render calls in which it blocked (the audio thread gave up the CPU of its own accord: a
    /// sleep, a lock waited for, I/O), when timed. A render must never block.
    public let blockedRenders = Atomic<Int>(0)

    public init(timesRender: Bool = false) {
        self.timesRender = timesRender
        renderTimes = LatencyHistogram(bucketCount: timesRender ? 2_000 : 1)
    }
}
