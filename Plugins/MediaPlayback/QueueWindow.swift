/// The part of a long queue an app publishes: at most `limit` entries around the current one, so
/// a folder of thousands of tracks still shows where it is within the runtime's
/// `nowPlaying.maxQueueItems` (1,000 unless the integrator sets it).
public enum QueueWindow {
    public static let limit = 1_000

    /// The indexes of a queue of `count` entries to publish: all of them, or `limit` with
    /// `current` half way in where it can be.
    public static func range(count: Int, current: Int?) -> Range<Int> {
        guard count > limit else { return 0..<count }
        let start = min(max(0, (current ?? 0) - limit / 2), count - limit)
        return start..<(start + limit)
    }
}
