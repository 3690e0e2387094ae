import Synchronization

/// Durations (a frame's lateness, a render call) in 10 µs buckets up to `bucketCount` of them
/// (longer ones count in the last bucket), and the longest exactly. Written by one thread only;
/// readers on other threads get an approximate copy while it runs and an exact one after.
public final class LatencyHistogram: @unchecked Sendable {  // Its buckets are atomics behind a pointer it owns.
    public static let bucketNanoseconds = 10_000
    public let bucketCount: Int
    /// Relaxed atomics: one writer stores plain words (no read-modify-write), readers never race it.
    private let buckets: UnsafeMutablePointer<Atomic<Int>>
    /// Durations recorded and the longest, kept as they come so readers never sum every bucket.
    private let recorded = Atomic<Int>(0)
    private let longest = Atomic<Int>(0)

    /// `bucketCount` buckets of 10 µs: the default reaches 100 ms.
    public init(bucketCount: Int = 10_000) {
        self.bucketCount = max(bucketCount, 1)
        buckets = .allocate(capacity: self.bucketCount)
        for index in 0..<self.bucketCount { (buckets + index).initialize(to: Atomic(0)) }
    }

    deinit {
        buckets.deinitialize(count: bucketCount)
        buckets.deallocate()
    }

    /// Counts one duration of `nanoseconds` (0 or less: none). [one writer thread]
    public func record(_ nanoseconds: Int) {
        let index = min(max(nanoseconds, 0) / LatencyHistogram.bucketNanoseconds, bucketCount - 1)
        let bucket = buckets + index
        bucket.pointee.store(bucket.pointee.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
        recorded.store(recorded.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
        if nanoseconds > longest.load(ordering: .relaxed) { longest.store(nanoseconds, ordering: .relaxed) }
    }

    public var count: Int { recorded.load(ordering: .relaxed) }

    /// The duration at quantile `q` (0...1), as the upper edge of its bucket (never above the
    /// longest recorded; in the last bucket, which holds every longer one, the longest), in nanoseconds.
    public func quantile(_ q: Double) -> Int {
        let total = count
        guard total > 0 else { return 0 }
        let fraction = q.isFinite ? min(max(q, 0), 1) : 1  // the rank below stays within 0...total
        let rank = Int((Double(total) * fraction).rounded(.up))
        var seen = 0
        for index in 0..<(bucketCount - 1) {
            seen += (buckets + index).pointee.load(ordering: .relaxed)
            if seen >= max(rank, 1) { return min((index + 1) * LatencyHistogram.bucketNanoseconds, maximum) }
        }
        return maximum
    }

    /// The longest duration recorded, in nanoseconds.
    public var maximum: Int { longest.load(ordering: .relaxed) }
}
