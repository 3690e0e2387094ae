import CDeckPlugin
import Glibc
import Testing
@testable import DeckSession
@testable import DeckAudio
import DeckMedia

private let constantRender: RenderSource.Render = { _, frames, out in
    for i in 0..<(Int(frames) * 2) { out![i] = 0.5 }
    return frames
}

/// Ducking measured on the PCM the mixer renders, sample by sample.
@Suite struct DuckingTests {
    @Test func aDuckedStreamFalls14dBWithoutAnyStepSteeperThanTheRamp() {
        let policy = SessionPolicy()
        let mixer = Mixer(frames: 960)
        let plugin = UnsafeMutablePointer<deck_plugin_t>.allocate(capacity: 1)
        plugin.initialize(to: deck_plugin_t())
        defer { plugin.deallocate() }
        let counters = StreamCounters()
        mixer.open(stream: 0, source: RenderSource(plugin: plugin, render: constantRender), gain: 1, counters: .passUnretained(counters))

        var left: [Float] = []
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 1920)
        defer { out.deallocate() }
        func render(frames: Int) {
            for _ in 0..<frames {
                mixer.mix(into: out)
                left += stride(from: 0, to: 1920, by: 2).map { out[$0] }
            }
        }
        render(frames: 10)  // 200 ms at full level
        mixer.rampGain(stream: 0, to: policy.duckGain, samples: Int(policy.duckRampMilliseconds * 48), curve: .exponential)
        render(frames: 50)  // the 500 ms ramp and 500 ms ducked

        func decibels(_ slice: ArraySlice<Float>) -> Double {
            20 * log10(sqrt(slice.reduce(0) { $0 + Double($1) * Double($1) } / Double(slice.count)))
        }
        let before = decibels(left[0..<9_600]), after = decibels(left[(left.count - 9_600)...])
        #expect(abs((after - before) - (-14)) <= 0.5)
        // The ramp is exponential: equal dB steps of 14 dB over 24 000 samples, never a larger one.
        let slope = 14.0 / 24_000
        let steps = zip(left, left.dropFirst()).map { abs(20 * log10(Double($1) / Double($0))) }
        #expect(steps.max()! <= slope * 1.01)  // 1%: the output samples are Float-rounded
        // It starts on the very next frame after the command.
        #expect(left[9_599] == 0.5)
        #expect(left[9_600] < 0.5)
    }
}
