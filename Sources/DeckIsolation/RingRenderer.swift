import CDeckPlugin
import DeckBase
import DeckMedia
import Glibc
import Synchronization

/// What the audio thread pulls for an isolated plugin's stream: the frames its host rendered
/// into the shared ring. A frame not there within the deadline is a counted underrun in which the
/// last frame, reflected through its last sample (so the waveform and its slope go on without a
/// jump), fades to silence over 10 ms; the frame after an underrun fades in. Paced, a host that
/// missed is not waited for again until it catches up, so it never stalls the output.
final class RingRenderer: @unchecked Sendable {  // Audio-thread state; only its atomic counters are read elsewhere.
    /// How long the mix waits for a host's frame, and whether it waits again after a miss.
    struct Deadline {
        let milliseconds: Int
        /// In freewheel every frame waits: there is no real time to keep, and a frame not waited
        /// for is silence in the file (the mix would race through a host's brief stall).
        let waitsWhileLate: Bool
    }

    private let ring: AudioRing
    private let deadlineMilliseconds: Int32
    private let waitsWhileLate: Bool
    /// Set while the loop drains a closing stream: the host renders no more, so nothing is waited for.
    private let draining = Atomic<Bool>(false)
    /// A `deck_plugin_t` whose data is this reader, so the mixer pulls it like any plugin.
    private let standIn: UnsafeMutablePointer<deck_plugin_t>
    private var late = false
    private var fadeIn = false
    /// The last frame delivered, and how many of its frames are there (0 once faded out).
    private let last: UnsafeMutablePointer<Float>
    private var lastCount = 0
    /// Frames missed in a row; the loop reads it to notice a render that stopped.
    let missedFrames = Atomic<Int>(0)
    /// Frames missed in all: the host did not deliver them by the deadline (each is an underrun
    /// to the mixer too, though the plugin's render may have filled it, only late).
    let lateFrames = Atomic<Int>(0)
    /// Frames taken, and how many were waiting in the ring (the taken one included) each time:
    /// their ratio is the latency the ring adds, in frames.
    let framesTaken = Atomic<Int>(0)
    let framesQueued = Atomic<Int>(0)

    init(ring: AudioRing, deadline: Deadline) {
        self.ring = ring
        deadlineMilliseconds = Int32(deadline.milliseconds)
        waitsWhileLate = deadline.waitsWhileLate
        standIn = .allocate(capacity: 1)
        standIn.initialize(to: deck_plugin_t())
        last = .allocate(capacity: ring.frames * 2)
        standIn.pointee.plugin_data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        standIn.deallocate()
        last.deallocate()
    }

    var source: RenderSource {
        RenderSource(plugin: UnsafePointer(standIn)) { plugin, frames, out in
            guard let data = plugin?.pointee.plugin_data, let out else { return 0 }
            return UInt32(Unmanaged<RingRenderer>.fromOpaque(data).takeUnretainedValue().render(frames: Int(frames), into: out))
        }
    }

    /// The host closed its stream (its render thread stopped): in freewheel the mix first takes
    /// what the host rendered ahead, up to the deadline, then `close` ends the stream. Loop thread.
    func drain(then close: () -> Void) {
        guard waitsWhileLate else { return close() }
        draining.store(true, ordering: .relaxed)
        let start = MonotonicClock.nanoseconds
        while ring.queued > 0, MonotonicClock.nanoseconds - start < Int(deadlineMilliseconds) * 1_000_000 { sched_yield() }
        close()
        draining.store(false, ordering: .relaxed)
    }

    private func render(frames: Int, into out: UnsafeMutablePointer<Float>) -> Int {
        guard frames == ring.frames else { return 0 }
        let queued = ring.queued
        var count = ring.read(into: out)
        if count == nil && (!late || waitsWhileLate) && !draining.load(ordering: .relaxed) {
            AudioRing.drain(ring.filled)
            count = ring.read(into: out)
            if count == nil, AudioRing.wait(ring.filled, milliseconds: deadlineMilliseconds) { count = ring.read(into: out) }
        }
        guard let count else {
            late = true
            fadeIn = true
            if !draining.load(ordering: .relaxed) {  // a closing host's ring runs dry: its end, not a miss
                missedFrames.add(1, ordering: .relaxed)
                lateFrames.add(1, ordering: .relaxed)
            }
            let ramp = ReflectedTail.write(after: last, count: lastCount, into: out, limit: frames)
            lastCount = 0
            return ramp
        }
        late = false
        missedFrames.store(0, ordering: .relaxed)
        framesTaken.add(1, ordering: .relaxed)
        framesQueued.add(max(queued, 1), ordering: .relaxed)
        if fadeIn {
            fadeIn = false
            let ramp = min(ReflectedTail.frames, count)
            for index in 0..<ramp {
                let gain = 1 - ReflectedTail.fade(index, of: ramp)
                out[index * 2] *= gain
                out[index * 2 + 1] *= gain
            }
        }
        last.update(from: out, count: count * 2)
        lastCount = count
        return count
    }
}
