import CDeckPlugin
import DeckBase
import DeckMedia
import Glibc
import DeckStream
import Synchronization

/// Pulls every open stream, applies its gain ramp, sums it into each bus (mix) it is routed to,
/// and limits: the audio thread's one frame of work before encoding. Never allocates after init.
/// Audio-thread-confined.
public final class Mixer {
    private struct Stream {
        var source: RenderSource?
        var gain = GainRamp(1)
        var counters: Unmanaged<StreamCounters>?
        /// One bit per bus the stream is mixed into.
        var buses: UInt8 = 1
        /// Frames of its last render kept in `lasts`, for the tail it ends with.
        var lastCount = 0
    }

    public static let capacity = 32
    /// Mixes made at once: app audio, contexts pinned elsewhere, both, and silence.
    public static let maxBuses = 4
    public let frames: Int
    private let streams: UnsafeMutablePointer<Stream>
    /// Where a stream's frame takes its gain when that is not 1, and a closed stream's tail is made.
    private let scratch: UnsafeMutablePointer<Float>
    /// The stream whose render runs now (-1: none): what the audio watchdog names when a frame
    /// does not finish, and what a close waits out. Written by the audio thread, read by the loop.
    let renderingStream = Atomic<Int>(-1)
    /// When that render began (monotonic ns), stored before `renderingStream`.
    private let renderBegan = Atomic<Int>(0)
    /// One bit per stream the loop closed: never pulled again, it ends with its reflected tail on
    /// the next frame and the audio thread clears the bit when the slot is free.
    let closing = Atomic<UInt32>(0)
    /// One bit per slot holding a stream, so a frame visits those slots only (all 32 slots span
    /// some 50 cache lines). Written only by the thread that mixes.
    private let occupied = Atomic<UInt32>(0)
    /// Each stream's last frame as rendered, `frames × 2` floats a stream: its render writes there.
    private let lasts: UnsafeMutablePointer<Float>
    /// The buses a stream was written into this frame: the first one copies, so no bus is zeroed first.
    private var writtenBuses: UInt8 = 0
    /// Per bus, the sum of the peaks written into it this frame: at most 1, no sample can need limiting.
    private let peakSums: UnsafeMutablePointer<Float>

    public init(frames: Int) {
        self.frames = frames
        streams = .allocate(capacity: Mixer.capacity)
        streams.initialize(repeating: Stream(), count: Mixer.capacity)
        scratch = .allocate(capacity: frames * AudioFormat.channels)
        lasts = .allocate(capacity: Mixer.capacity * frames * AudioFormat.channels)
        peakSums = .allocate(capacity: Mixer.maxBuses)
        peakSums.initialize(repeating: 0, count: Mixer.maxBuses)
    }

    deinit {
        streams.deinitialize(count: Mixer.capacity)
        streams.deallocate()
        scratch.deallocate()
        lasts.deallocate()
        peakSums.deallocate()
    }

    /// Writes every page of its frame buffers, so no stream's first frame in a slot waits on a
    /// page fault. [audio thread, before its first frame]
    func writeEveryPage() {
        let count = frames * AudioFormat.channels
        scratch.update(repeating: 0, count: count)
        lasts.update(repeating: 0, count: Mixer.capacity * count)
    }

    public func open(stream: Int, source: RenderSource, gain: Float, counters: Unmanaged<StreamCounters>, buses: UInt8 = 1) {
        streams[stream] = Stream(source: source, gain: GainRamp(gain), counters: counters, buses: buses)
        occupied.store(occupied.load(ordering: .relaxed) | Mixer.bit(stream), ordering: .relaxed)
    }

    /// Mixes the stream into the buses whose bits are set, from the next frame.
    public func route(stream: Int, buses: UInt8) { streams[stream].buses = buses }

    public func close(stream: Int) {
        streams[stream] = Stream()
        occupied.store(occupied.load(ordering: .relaxed) & ~Mixer.bit(stream), ordering: .relaxed)
        closing.bitwiseAnd(~Mixer.bit(stream), ordering: .releasing)
    }

    /// The loop's side of a close that does not wait for a fade: from when this returns the
    /// stream's render is not running and is never called again. It waits only for a render in
    /// progress to return (at most `timeoutNanoseconds`; false when it did not).
    func beginClosing(stream: Int, timeoutNanoseconds: Int) -> Bool {
        // Paired with `mix`: it publishes the stream it renders, then reads `closing`; this sets
        // `closing`, then reads the stream rendered. One of the two sees the other.
        closing.bitwiseOr(Mixer.bit(stream), ordering: .sequentiallyConsistent)
        let start = MonotonicClock.nanoseconds
        while renderingStream.load(ordering: .sequentiallyConsistent) == stream {
            if MonotonicClock.nanoseconds - start > timeoutNanoseconds { return false }
            sched_yield()
        }
        return true
    }

    /// Whether the slot still ends a closed stream (it cannot take a new one yet).
    func isClosing(_ stream: Int) -> Bool { closing.load(ordering: .acquiring) & Mixer.bit(stream) != 0 }

    private static func bit(_ stream: Int) -> UInt32 { 1 << UInt32(stream) }

    /// Fades every audible stream to silence over `samples` (an S-curve), for the end of the output.
    public func fadeOutAll(samples: Int) {
        for index in 0..<Mixer.capacity where streams[index].source != nil && !streams[index].gain.isSilent {
            streams[index].gain.ramp(to: 0, samples: samples, curve: .sCurve)
        }
    }

    /// Whether any stream is still fading.
    public var isFading: Bool { (0..<Mixer.capacity).contains { streams[$0].source != nil && streams[$0].gain.isRamping } }

    public func rampGain(stream: Int, to target: Float, samples: Int, curve: GainRamp.Curve) {
        streams[stream].gain.ramp(to: target, samples: samples, curve: curve)
    }

    /// The stream whose render runs now and how long it has run (ns); nil between renders. Any thread.
    var currentRender: (stream: Int, nanoseconds: Int)? {
        let stream = renderingStream.load(ordering: .acquiring)
        guard stream >= 0 else { return nil }
        return (stream, MonotonicClock.nanoseconds - renderBegan.load(ordering: .relaxed))
    }

    /// Renders one frame of every audible stream and mixes it, interleaved stereo, into each active
    /// bus it is routed to; bus `b` is `out + b × frames × 2`. Every stream is rendered, routed or not.
    /// Returns how many output samples were outside [-1, 1] and clamped.
    @discardableResult
    public func mix(into out: UnsafeMutablePointer<Float>, activeBuses: UInt8 = 1) -> Int {
        let count = frames * AudioFormat.channels
        writtenBuses = 0
        peakSums.update(repeating: 0, count: Mixer.maxBuses)
        var slots = occupied.load(ordering: .relaxed) | closing.load(ordering: .acquiring)
        while slots != 0 {
            let index = slots.trailingZeroBitCount
            slots &= slots - 1
            guard let source = streams[index].source, let counters = streams[index].counters else {
                if isClosing(index) { close(stream: index) }
                continue
            }
            if isClosing(index) {
                endClosed(index, into: out, activeBuses: activeBuses)
                continue
            }
            // Paused means paused: a stream faded to rest at zero is not pulled, so its content
            // does not advance until its gain rises again.
            if streams[index].gain.isSilent { continue }
            let began = MonotonicClock.nanoseconds
            renderBegan.store(began, ordering: .relaxed)
            renderingStream.store(index, ordering: .sequentiallyConsistent)
            if closing.load(ordering: .sequentiallyConsistent) & Mixer.bit(index) != 0 {
                renderingStream.store(-1, ordering: .releasing)
                endClosed(index, into: out, activeBuses: activeBuses)
                continue
            }
            let timed = counters._withUnsafeGuaranteedRef { $0.timesRender }
            var before = rusage(), after = rusage()
            if timed { getrusage(Mixer.thisThread, &before) }
            let frame = lasts + index * count
            let produced = min(Int(source.render(source.plugin, UInt32(frames), frame)), frames)
            if timed {
                getrusage(Mixer.thisThread, &after)
                let took = MonotonicClock.nanoseconds - began
                counters._withUnsafeGuaranteedRef { counters in
                    counters.renderTimes.record(took)
                    if after.ru_nvcsw > before.ru_nvcsw { counters.blockedRenders.add(1, ordering: .relaxed) }
                }
            }
            renderingStream.store(-1, ordering: .releasing)
            var peak: Float = 0, subnormal = false
            counters._withUnsafeGuaranteedRef { counters in
                if produced < frames {
                    frame.advanced(by: produced * 2).update(repeating: 0, count: (frames - produced) * 2)
                    counters.underrunFrames.add(1, ordering: .relaxed)
                } else {
                    counters.renderedFrames.add(1, ordering: .relaxed)
                }
                peak = Mixer.peak(frame, count: produced * 2, subnormal: &subnormal)
                if subnormal { counters.subnormalFrames.add(1, ordering: .relaxed) }
                if !peak.isFinite {
                    frame.update(repeating: 0, count: count)
                    counters.invalidFrames.add(1, ordering: .relaxed)
                } else if peak > 1 {
                    counters.clippedFrames.add(1, ordering: .relaxed)
                }
                if peak.isFinite && peak > Mixer.silenceThreshold {
                    counters.silentRun.store(0, ordering: .relaxed)
                } else {
                    counters.silentRun.add(1, ordering: .relaxed)
                }
            }
            streams[index].lastCount = frames
            let bound = peak.isFinite ? peak : 0
            if streams[index].gain.isUnity {
                add(frame, of: index, into: out, activeBuses: activeBuses, peak: bound)
            } else {
                let gain = streams[index].gain
                scratch.update(from: frame, count: count)
                streams[index].gain.apply(to: scratch, frames: frames)
                // A ramp moves monotonically from its current gain to its target.
                add(scratch, of: index, into: out, activeBuses: activeBuses, peak: bound * max(abs(gain.current), abs(gain.target)))
            }
        }
        var limited: Int32 = 0
        for bus in 0..<Mixer.maxBuses where activeBuses & (1 << bus) != 0 {
            let mix = out + bus * count
            guard writtenBuses & (1 << bus) != 0 else {
                mix.update(repeating: 0, count: count)
                continue
            }
            // Below full scale by more than the sums' rounding, no sample can reach it.
            guard peakSums[bus] > Mixer.limiterThreshold else { continue }
            for i in 0..<count {  // without branches, so it runs on vectors
                let sample = mix[i]
                limited &+= abs(sample) > 1 ? 1 : 0
                mix[i] = min(max(sample, -1), 1)
            }
        }
        return Int(limited)
    }

    /// A closed stream's last sound: its reflected tail at its gain, then the slot is free.
    private func endClosed(_ index: Int, into out: UnsafeMutablePointer<Float>, activeBuses: UInt8) {
        let count = frames * AudioFormat.channels
        scratch.update(repeating: 0, count: count)
        if !streams[index].gain.isSilent {
            _ = ReflectedTail.write(after: lasts + index * count, count: streams[index].lastCount, into: scratch,
                                    limit: frames, gain: streams[index].gain.current)
            add(scratch, of: index, into: out, activeBuses: activeBuses, peak: .infinity)
        }
        close(stream: index)
    }

    /// Sums one stream's frame, whose samples are at most `peak` in magnitude, into each active bus
    /// it is routed to; the first stream into a bus copies.
    private func add(_ frame: UnsafeMutablePointer<Float>, of index: Int, into out: UnsafeMutablePointer<Float>, activeBuses: UInt8,
                     peak: Float) {
        let count = frames * AudioFormat.channels
        let buses = streams[index].buses & activeBuses
        for bus in 0..<Mixer.maxBuses where buses & (1 << bus) != 0 {
            let mix = out + bus * count
            if writtenBuses & (1 << bus) == 0 {
                mix.update(from: frame, count: count)
                writtenBuses |= 1 << bus
            } else {
                for i in 0..<count { mix[i] += frame[i] }
            }
            peakSums[bus] += peak
        }
    }

    /// −90 dBFS: below this a frame counts as silence.
    static let silenceThreshold: Float = 3.2e-5

    /// Sums of peaks up to here skip the limiter: a hair under 1, for the rounding of sums and gains.
    static let limiterThreshold: Float = 0.999

    /// getrusage's RUSAGE_THREAD: the calling thread's own counters.
    private static let thisThread = __rusage_who_t(1)

    /// The largest magnitude (NaN when any sample is not finite); sets `subnormal` when any sample is.
    /// On magnitudes' bit patterns as signed integers, which order as the magnitudes do (NaN and
    /// infinity above every finite one), without branches, so the loop runs on SSE2's vectors.
    private static func peak(_ samples: UnsafeMutablePointer<Float>, count: Int, subnormal: inout Bool) -> Float {
        var top: Int32 = 0, subnormals: Int32 = 0
        for i in 0..<count {
            let magnitude = Int32(bitPattern: samples[i].bitPattern & 0x7FFF_FFFF)
            top = max(top, magnitude)
            // 1 through 0x007F_FFFF are the subnormals.
            subnormals |= (magnitude > 0 ? 1 : 0) & (magnitude < 0x0080_0000 ? 1 : 0)
        }
        subnormal = subnormals != 0
        return top >= 0x7F80_0000 ? .nan : Float(bitPattern: UInt32(top))
    }
}
