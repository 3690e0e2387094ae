/// Frame lateness in 10 µs buckets up to 100 ms (later counts in the last bucket). Written by the
/// audio thread only; readers get an approximate copy while it runs and an exact one after.
public final class LatencyHistogram: @unchecked Sendable {  // Single writer; word-sized counters read without tearing on supported CPUs.
    public static let bucketNanoseconds = 10_000
    public static let bucketCount = 10_000
    private let buckets: UnsafeMutablePointer<Int>
    /// Frames recorded, and the highest bucket used, kept as they come so readers never sum 10 000 buckets.
    private let totals: UnsafeMutablePointer<(count: Int, highest: Int)>

    public init() {
        buckets = .allocate(capacity: LatencyHistogram.bucketCount)
        buckets.initialize(repeating: 0, count: LatencyHistogram.bucketCount)
        totals = .allocate(capacity: 1)
        totals.initialize(to: (0, -1))
    }

    deinit {
        buckets.deallocate()
        totals.deallocate()
    }

    /// Counts one frame that was `nanoseconds` late (0 or less: on time). [audio-thread]
    public func record(_ nanoseconds: Int) {
        let index = min(max(nanoseconds, 0) / LatencyHistogram.bucketNanoseconds, LatencyHistogram.bucketCount - 1)
        buckets[index] += 1
        totals.pointee = (totals.pointee.count + 1, max(totals.pointee.highest, index))
    }

    public var count: Int { totals.pointee.count }

    /// The lateness at quantile `q` (0...1), as the upper edge of its bucket, in nanoseconds.
    public func quantile(_ q: Double) -> Int {
        let total = count
        guard total > 0 else { return 0 }
        let rank = Int((Double(total) * q).rounded(.up))
        var seen = 0
        for index in 0..<LatencyHistogram.bucketCount {
            seen += buckets[index]
            if seen >= max(rank, 1) { return (index + 1) * LatencyHistogram.bucketNanoseconds }
        }
        return LatencyHistogram.bucketCount * LatencyHistogram.bucketNanoseconds
    }

    /// The largest recorded lateness, as the upper edge of its bucket, in nanoseconds.
    public var maximum: Int {
        let highest = totals.pointee.highest
        return highest < 0 ? 0 : (highest + 1) * LatencyHistogram.bucketNanoseconds
    }
}
