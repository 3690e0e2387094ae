import Foundation
import Synchronization
import Testing
import DeckMedia

/// The histogram behind `runtime.info`'s lateness and the plugins' render times: one thread
/// records, the loop reads it at any time.
@Suite struct LatencyHistogramTests {
    @Test func aQuantileIsTheUpperEdgeOfItsBucketNeverAboveTheLongest() {
        let histogram = LatencyHistogram(bucketCount: 100)
        for microseconds in [5, 15, 15, 25, 95] { histogram.record(microseconds * 1_000) }
        #expect(histogram.count == 5)
        #expect(histogram.quantile(0) == 10_000, "the first duration's bucket")
        #expect(histogram.quantile(0.5) == 20_000, "the third of five: 15 µs, in the bucket up to 20 µs")
        #expect(histogram.quantile(0.8) == 30_000)
        #expect(histogram.quantile(1) == 95_000, "the last bucket edge (100 µs) is above the longest")
        #expect(histogram.quantile(.nan) == 95_000 && histogram.quantile(-1) == 10_000 && histogram.quantile(7) == 95_000)
        #expect(histogram.maximum == 95_000)
    }

    @Test func durationsPastTheLastBucketCountThereAndTheLongestStaysExact() {
        let histogram = LatencyHistogram(bucketCount: 2)
        #expect(histogram.quantile(0.5) == 0 && histogram.maximum == 0, "nothing recorded")
        histogram.record(-5)
        histogram.record(3_000_000)
        #expect(histogram.count == 2)
        #expect(histogram.quantile(0.5) == 10_000, "a negative duration counts as none, in the first bucket")
        #expect(histogram.quantile(1) == 3_000_000 && histogram.maximum == 3_000_000, "the last bucket says its longest, not its lower bound")
    }

    /// A reader beside the writer sees counts that only grow, and the exact totals once it stops.
    @Test func aReaderBesideTheWriterSeesGrowingCountsAndTheExactTotalsAfter() {
        let histogram = LatencyHistogram(bucketCount: 50)
        let total = 200_000
        let done = Atomic<Bool>(false)
        Thread {
            for index in 0..<total { histogram.record((index % 60) * 10_000) }
            done.store(true, ordering: .releasing)
        }.start()
        var last = 0, grew = true
        while !done.load(ordering: .acquiring) {
            let count = histogram.count
            grew = grew && count >= last && histogram.quantile(0.99) <= 590_000
            last = count
        }
        #expect(grew, "the count went back, or a quantile passed the longest")
        #expect(histogram.count == total)
        #expect(histogram.maximum == 590_000)
        // 49 of every 60 durations fall in buckets 0...48; the other 11 (490 µs and up) in the last.
        #expect(histogram.quantile(49.0 / 60) == 490_000)
        #expect(histogram.quantile(49.0 / 60 + 0.001) == 590_000)
    }
}
