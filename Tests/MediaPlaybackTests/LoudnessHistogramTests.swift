import Glibc
import MediaPlayback
import Testing

/// BS.1770's gating over a histogram of block loudness: the absolute gate at −70 LUFS, the
/// relative gate 10 LU under the mean of what passed it.
@Suite struct LoudnessHistogramTests {
    @Test func blocksMoreThan10LUUnderTheMeanAreGatedOut() throws {
        var histogram = LoudnessHistogram()
        for _ in 0..<10 { histogram.add(loudness: -20) }
        for _ in 0..<10 { histogram.add(loudness: -40) }
        let loudness = try #require(histogram.integratedLoudness)
        #expect(abs(loudness - -20) < 0.001, "\(loudness)")
    }

    @Test func blocksWithin10LUCountAsEnergyNotAsLUFS() throws {
        var histogram = LoudnessHistogram()
        histogram.add(loudness: -20)
        histogram.add(loudness: -26)
        // The mean of 10^(-2.0) and 10^(-2.6) in energy, not −23.
        let expected = 10 * log10((pow(10, -2.0) + pow(10, -2.6)) / 2)
        #expect(abs(try #require(histogram.integratedLoudness) - expected) < 0.001)
    }

    @Test func theAbsoluteGateAndNonNumbersLeaveNothing() {
        var histogram = LoudnessHistogram()
        for value in [-70.5, -120, -.infinity, .nan, .infinity] { histogram.add(loudness: value) }
        #expect(histogram.integratedLoudness == nil)
    }

    @Test func mergingIsTheSameAsAddingEveryBlockToOne() throws {
        var first = LoudnessHistogram(), second = LoudnessHistogram(), both = LoudnessHistogram()
        for value in [-14.0, -15.5, -31, 12, 45] { first.add(loudness: value); both.add(loudness: value) }
        for value in [-9.0, -22, -60, -69.99] { second.add(loudness: value); both.add(loudness: value) }
        first.merge(second)
        #expect(abs(try #require(first.integratedLoudness) - #require(both.integratedLoudness)) < 1e-9)
    }
}
