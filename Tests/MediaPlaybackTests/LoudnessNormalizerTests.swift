import CEbur128
import Glibc
@testable import MediaPlayback
import Testing

/// The adapting normalizer's meter (a station's): its integration keeps the settling time, so a
/// station played for hours holds no more than one played for seconds.
@Suite struct LoudnessNormalizerTests {
    @Test func theMeterIntegratesTheLast10SecondsOnly() throws {
        var meter = LoudnessNormalizer.makeMeter()
        defer { ebur128_destroy(&meter) }
        let state = try #require(meter)
        func feed(seconds: Int, amplitude: Float) -> Double {
            var samples = [Float](repeating: 0, count: 4_800 * 2)
            for hop in 0..<(seconds * 10) {
                for frame in 0..<4_800 {
                    let value = amplitude * sinf(Float(hop * 4_800 + frame) * 2 * .pi * 440 / 48_000)
                    samples[frame * 2] = value
                    samples[frame * 2 + 1] = value
                }
                ebur128_add_frames_float(state, samples, 4_800)
            }
            var loudness = 0.0
            #expect(ebur128_loudness_global(state, &loudness) == 0)
            return loudness
        }
        let loud = feed(seconds: 30, amplitude: 0.5)
        // 40 dB down for 12 s: kept whole, the loud half's relative gate would drop all of it.
        let after = feed(seconds: 12, amplitude: 0.005)
        #expect(abs(after - (loud - 40)) < 0.5, "loud \(loud) LUFS, then \(after) LUFS")
    }
}
