import DeckMedia
import DeckBase
import CDeckPlugin
import Testing
@testable import DeckAudio

/// A stream source for mixer tests: a constant value, with an optional shortfall or NaN.
private struct ConstantSource {
    var value: Float
    var produced: Int?
    var nan = false
}

private let constantRender: RenderSource.Render = { plugin, frames, out in
    let source = plugin!.pointee.plugin_data!.assumingMemoryBound(to: ConstantSource.self).pointee
    let count = source.produced ?? Int(frames)
    for i in 0..<(count * 2) { out![i] = source.value }
    if source.nan { out![1] = .nan }
    return UInt32(count)
}

/// Owns the C structs a RenderSource points at.
private final class TestStream {
    let state: UnsafeMutablePointer<ConstantSource>
    let plugin: UnsafeMutablePointer<deck_plugin_t>
    let counters = StreamCounters()

    init(_ source: ConstantSource) {
        state = .allocate(capacity: 1)
        state.initialize(to: source)
        plugin = .allocate(capacity: 1)
        plugin.initialize(to: deck_plugin_t())
        plugin.pointee.plugin_data = UnsafeMutableRawPointer(state)
    }

    var source: RenderSource { RenderSource(plugin: plugin, render: constantRender) }

    deinit {
        state.deallocate()
        plugin.deallocate()
    }
}

@Suite struct MixerTests {
    let frames = 960

    func mix(_ mixer: Mixer) -> [Float] { mixCounting(mixer).out }

    /// One frame's mix and how many of its samples were clamped.
    func mixCounting(_ mixer: Mixer) -> (out: [Float], limited: Int) {
        var out = [Float](repeating: 99, count: frames * 2)
        let limited = out.withUnsafeMutableBufferPointer { mixer.mix(into: $0.baseAddress!) }
        return (out, limited)
    }

    @Test func streamsAreSummedWithTheirGains() {
        let mixer = Mixer(frames: frames)
        let a = TestStream(ConstantSource(value: 0.25)), b = TestStream(ConstantSource(value: 0.5))
        mixer.open(stream: 0, source: a.source, gain: 1, counters: .passUnretained(a.counters))
        mixer.open(stream: 3, source: b.source, gain: 0.5, counters: .passUnretained(b.counters))
        #expect(mix(mixer).allSatisfy { $0 == 0.5 })
        mixer.close(stream: 0)
        #expect(mix(mixer).allSatisfy { $0 == 0.25 })
        #expect(a.counters.renderedFrames.load(ordering: .relaxed) == 1)
        #expect(b.counters.renderedFrames.load(ordering: .relaxed) == 2)
    }

    @Test func silenceWhenNothingIsOpen() {
        #expect(mix(Mixer(frames: frames)).allSatisfy { $0 == 0 })
    }

    @Test func theSumIsClampedToFullScale() {
        let mixer = Mixer(frames: frames)
        let loud = TestStream(ConstantSource(value: 0.75)), louder = TestStream(ConstantSource(value: -3))
        mixer.open(stream: 0, source: loud.source, gain: 1, counters: .passUnretained(loud.counters))
        mixer.open(stream: 1, source: loud.source, gain: 1, counters: .passUnretained(loud.counters))
        let both = mixCounting(mixer)
        #expect(both.out.allSatisfy { $0 == 1 })
        #expect(both.limited == frames * 2)
        mixer.open(stream: 2, source: louder.source, gain: 1, counters: .passUnretained(louder.counters))
        let all = mixCounting(mixer)
        #expect(all.out.allSatisfy { $0 == -1 })
        #expect(all.limited == frames * 2)
    }

    /// The limiter may be skipped only where no sample can reach full scale: a gain rising within
    /// the frame and a closed stream's tail count at their loudest.
    @Test func whatCanReachFullScaleIsStillLimited() {
        let mixer = Mixer(frames: frames)
        let stream = TestStream(ConstantSource(value: 0.75)), other = TestStream(ConstantSource(value: 0.75))
        mixer.open(stream: 0, source: stream.source, gain: 1, counters: .passUnretained(stream.counters))
        mixer.rampGain(stream: 0, to: 2, samples: frames / 2, curve: .linear)
        let rising = mixCounting(mixer)
        #expect(rising.out.allSatisfy { $0 <= 1 })
        #expect(rising.out.last == 1)
        #expect(rising.limited > 0)
        mixer.rampGain(stream: 0, to: 1, samples: 0, curve: .linear)
        mixer.open(stream: 1, source: other.source, gain: 1, counters: .passUnretained(other.counters))
        _ = mix(mixer)
        #expect(mixer.beginClosing(stream: 0, timeoutNanoseconds: 1_000_000))
        let tail = mixCounting(mixer)
        #expect(tail.out[0] == 1)  // 0.75 and the tail's first sample, 0.75 faded a little
        #expect(tail.limited > 0)
        #expect(tail.out.last == 0.75)
    }

    @Test func aShortRenderIsPaddedWithSilenceAndCounted() {
        let mixer = Mixer(frames: frames)
        let short = TestStream(ConstantSource(value: 0.5, produced: 600))
        mixer.open(stream: 0, source: short.source, gain: 1, counters: .passUnretained(short.counters))
        let out = mix(mixer)
        #expect(out[..<1200].allSatisfy { $0 == 0.5 })
        #expect(out[1200...].allSatisfy { $0 == 0 })
        #expect(short.counters.underrunFrames.load(ordering: .relaxed) == 1)
    }

    @Test func aFrameWithNaNIsSilencedAndCounted() {
        let mixer = Mixer(frames: frames)
        let bad = TestStream(ConstantSource(value: 0.5, nan: true)), good = TestStream(ConstantSource(value: 0.125))
        mixer.open(stream: 0, source: bad.source, gain: 1, counters: .passUnretained(bad.counters))
        mixer.open(stream: 1, source: good.source, gain: 1, counters: .passUnretained(good.counters))
        #expect(mix(mixer).allSatisfy { $0 == 0.125 })
        #expect(bad.counters.invalidFrames.load(ordering: .relaxed) == 1)
    }

    /// Each frame is judged by its largest magnitude: not finite, over full scale, subnormal
    /// (slow on most CPUs), silent; the boundaries of each counted exactly.
    @Test(arguments: [
        (Float.infinity, "invalid"), (-Float.infinity, "invalid"), (-1.5, "clipped"), (1.0000001, "clipped"), (1, "fine"),
        (Float.leastNonzeroMagnitude, "subnormal"), (-Float.leastNormalMagnitude.nextDown, "subnormal"),
        (Float.leastNormalMagnitude, "silent"), (0, "silent"), (-2.9e-5, "silent"), (3.3e-5, "fine"),
    ])
    func aFrameIsJudgedByItsPeak(value: Float, verdict: String) {
        let mixer = Mixer(frames: frames)
        let stream = TestStream(ConstantSource(value: value))
        mixer.open(stream: 0, source: stream.source, gain: 1, counters: .passUnretained(stream.counters))
        _ = mix(mixer)
        let counters = stream.counters
        #expect(counters.invalidFrames.load(ordering: .relaxed) == (verdict == "invalid" ? 1 : 0))
        #expect(counters.clippedFrames.load(ordering: .relaxed) == (verdict == "clipped" ? 1 : 0))
        #expect(counters.subnormalFrames.load(ordering: .relaxed) == (verdict == "subnormal" ? 1 : 0))
        #expect(counters.silentRun.load(ordering: .relaxed) == (["silent", "subnormal", "invalid"].contains(verdict) ? 1 : 0))
    }
}

extension MixerTests {
    /// A closed stream ends with its last frame as rendered (not as heard), reflected, at its
    /// gain, and is never pulled again; in the first slot and the last.
    @Test(arguments: [(0, 1), (Mixer.capacity - 1, 0.5)] as [(Int, Float)])
    func aClosedStreamEndsWithItsTailAndIsNotPulledAgain(slot: Int, gain: Float) {
        let mixer = Mixer(frames: frames)
        let stream = TestStream(ConstantSource(value: 0.5))
        mixer.open(stream: slot, source: stream.source, gain: gain, counters: .passUnretained(stream.counters))
        #expect(mix(mixer).allSatisfy { $0 == 0.5 * gain })
        #expect(mixer.beginClosing(stream: slot, timeoutNanoseconds: 1_000_000))
        let tail = mix(mixer)
        #expect(abs(tail[0] - 0.5 * gain * ReflectedTail.fade(0, of: ReflectedTail.frames)) < 1e-6)
        #expect(tail[(ReflectedTail.frames * 2)...].allSatisfy { $0 == 0 })
        #expect(mix(mixer).allSatisfy { $0 == 0 })
        #expect(stream.counters.renderedFrames.load(ordering: .relaxed) == 1)
        #expect(!mixer.isClosing(slot))
    }

    @Test func eachStreamIsMixedIntoTheActiveBusesItIsRoutedTo() {
        let mixer = Mixer(frames: frames)
        let music = TestStream(ConstantSource(value: 0.25)), prompt = TestStream(ConstantSource(value: 0.5))
        mixer.open(stream: 0, source: music.source, gain: 1, counters: .passUnretained(music.counters), buses: 0b011)
        mixer.open(stream: 1, source: prompt.source, gain: 1, counters: .passUnretained(prompt.counters), buses: 0b110)
        let count = frames * 2
        var out = [Float](repeating: 99, count: count * Mixer.maxBuses)
        _ = out.withUnsafeMutableBufferPointer { mixer.mix(into: $0.baseAddress!, activeBuses: 0b111) }
        #expect(out[0..<count].allSatisfy { $0 == 0.25 })
        #expect(out[count..<2 * count].allSatisfy { $0 == 0.75 })
        #expect(out[2 * count..<3 * count].allSatisfy { $0 == 0.5 })
        #expect(out[(3 * count)...].allSatisfy { $0 == 99 })  // an idle bus is not touched
        mixer.route(stream: 1, buses: 0b001)
        _ = out.withUnsafeMutableBufferPointer { mixer.mix(into: $0.baseAddress!, activeBuses: 0b101) }
        #expect(out[0..<count].allSatisfy { $0 == 0.75 })
        #expect(out[2 * count..<3 * count].allSatisfy { $0 == 0 })
        #expect(music.counters.renderedFrames.load(ordering: .relaxed) == 2)
    }
}
