/// Durations (a frame's lateness, a render call) in 10 µs buckets up to `bucketCount` of them
/// (longer ones count in the last bucket), and the longest exactly. Written by one thread only;
/// readers get an approximate copy while it runs and an exact one after.
public final class LatencyHistogram: @unchecked Sendable {  // Single writer; word-sized counters read without tearing on supported CPUs.
    public static let bucketNanoseconds = 10_000
    public let bucketCount: Int
    private let buckets: UnsafeMutablePointer<Int>
    /// Durations recorded and the longest, kept as they come so readers never sum every bucket.
    private let totals: UnsafeMutablePointer<(count: Int, longest: Int)>

    /// `bucketCount` buckets of 10 µs: the default reaches 100 ms.
    public init(bucketCount: Int = 10_000) {
        self.bucketCount = max(bucketCount, 1)
        buckets = .allocate(capacity: self.bucketCount)
        buckets.initialize(repeating: 0, count: self.bucketCount)
        totals = .allocate(capacity: 1)
        totals.initialize(to: (0, 0))
    }

    deinit {
        buckets.deallocate()
        totals.deallocate()
    }

    /// Counts one duration of `nanoseconds` (0 or less: none). [one writer thread]
    public func record(_ nanoseconds: Int) {
        let index = min(max(nanoseconds, 0) / LatencyHistogram.bucketNanoseconds, bucketCount - 1)
        buckets[index] += 1
        totals.pointee = (totals.pointee.count + 1, max(totals.pointee.longest, nanoseconds))
    }

    public var count: Int { totals.pointee.count }

    /// The duration at quantile `q` (0...1), as the upper edge of its bucket (never above the
    /// longest recorded), in nanoseconds.
    public func quantile(_ q: Double) -> Int {
        let total = count
        guard total > 0 else { return 0 }
        let fraction = q.isFinite ? min(max(q, 0), 1) : 1  // the rank below stays within 0...total
        let rank = Int((Double(total) * fraction).rounded(.up))
        var seen = 0
        for index in 0..<bucketCount {
            seen += buckets[index]
            if seen >= max(rank, 1) { return min((index + 1) * LatencyHistogram.bucketNanoseconds, maximum) }
        }
        return maximum
    }

    /// The longest duration recorded, in nanoseconds.
    public var maximum: Int { totals.pointee.longest }
}
