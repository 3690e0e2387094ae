import DeckMedia
import Synchronization

/// The audio thread's counters, readable from the loop at any time.
public final class AudioStats: Sendable {
    /// Frames mixed and encoded since the output started.
    public let frames = Atomic<Int>(0)
    /// Times the thread fell behind by more than the configured bound and resynchronised.
    public let lateEvents = Atomic<Int>(0)
    /// Packets dropped because the loop did not take them in time (paced mode only).
    public let droppedPackets = Atomic<Int>(0)
    /// Output samples clamped to [-1, 1].
    public let limitedSamples = Atomic<Int>(0)
    /// Encoder failures (the frame is lost, the stream goes on).
    public let encoderErrors = Atomic<Int>(0)
    /// Times the thread found its real-time scheduling taken (by another process of the uid) and took it back.
    public let realtimeRetaken = Atomic<Int>(0)
    /// The frame (counted like `frames`) before which the latest command was applied: how soon a
    /// gain ramp or a stream change reaches the mix.
    public let lastCommandFrame = Atomic<Int>(-1)
    /// How late each paced frame started.
    public let lateness = LatencyHistogram()

    init() {}
}
