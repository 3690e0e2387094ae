import Glibc

/// BS.1770's gating blocks (400 ms energies) in 0.1 LU bins from −70 to +30 LUFS, each bin keeping
/// its blocks' exact energy sum: a whole album's integrated loudness in 16 KB, however long it is.
public struct LoudnessHistogram: Sendable {
    static let floor = -70.0, binsPerLU = 10.0, bins = 1_000
    private var counts = [Int](repeating: 0, count: LoudnessHistogram.bins)
    private var energies = [Double](repeating: 0, count: LoudnessHistogram.bins)

    public init() {}

    /// Adds one gating block given as its loudness (LUFS); blocks under −70 LUFS are gated out.
    public mutating func add(loudness: Double) {
        guard loudness.isFinite, loudness >= LoudnessHistogram.floor else { return }
        let bin = min(Int((loudness - LoudnessHistogram.floor) * LoudnessHistogram.binsPerLU), LoudnessHistogram.bins - 1)
        counts[bin] += 1
        energies[bin] += LoudnessHistogram.energy(loudness)
    }

    /// Adds another programme's blocks (a track's to its album's).
    public mutating func merge(_ other: LoudnessHistogram) {
        for bin in 0..<LoudnessHistogram.bins {
            counts[bin] += other.counts[bin]
            energies[bin] += other.energies[bin]
        }
    }

    /// The gated integrated loudness (LUFS): the mean of the blocks within 10 LU of the mean of
    /// all; nil when nothing passed the absolute gate. The bin holding the relative gate counts
    /// whole when its mean is above the gate.
    public var integratedLoudness: Double? {
        let total = counts.reduce(0, +)
        guard total > 0 else { return nil }
        let gate = energies.reduce(0, +) / Double(total) * 0.1
        var count = 0, energy = 0.0
        for bin in 0..<LoudnessHistogram.bins where counts[bin] > 0 && energies[bin] / Double(counts[bin]) >= gate {
            count += counts[bin]
            energy += energies[bin]
        }
        guard count > 0 else { return nil }
        return 10 * log10(energy / Double(count)) - 0.691
    }

    static func energy(_ loudness: Double) -> Double { pow(10, (loudness + 0.691) / 10) }
}
