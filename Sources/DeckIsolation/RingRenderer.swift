import CDeckPlugin
import DeckAudio
import Synchronization

/// What the audio thread pulls for an isolated plugin's stream: the frames its host rendered
/// into the shared ring. A frame not there within the deadline is a counted underrun that fades
/// from the last sample to silence (no click), and the frame after one fades in; a host that
/// missed is not waited for again until it catches up, so it never stalls the output.
final class RingRenderer: @unchecked Sendable {  // Audio-thread state; only `missedFrames` is read elsewhere.
    private let ring: AudioRing
    private let deadlineMilliseconds: Int32
    /// A `deck_plugin_t` whose data is this reader, so the mixer pulls it like any plugin.
    private let standIn: UnsafeMutablePointer<deck_plugin_t>
    private var late = false
    private var fadeIn = false
    private var last: (Float, Float) = (0, 0)
    /// Frames missed in a row; the loop reads it to notice a render that stopped.
    let missedFrames = Atomic<Int>(0)
    /// Frames taken, and how many were waiting in the ring (the taken one included) each time:
    /// their ratio is the latency the ring adds, in frames.
    let framesTaken = Atomic<Int>(0)
    let framesQueued = Atomic<Int>(0)
    static let rampFrames = 96

    init(ring: AudioRing, deadlineMilliseconds: Int) {
        self.ring = ring
        self.deadlineMilliseconds = Int32(deadlineMilliseconds)
        standIn = .allocate(capacity: 1)
        standIn.initialize(to: deck_plugin_t())
        standIn.pointee.plugin_data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit { standIn.deallocate() }

    var source: RenderSource {
        RenderSource(plugin: UnsafePointer(standIn)) { plugin, frames, out in
            guard let data = plugin?.pointee.plugin_data, let out else { return 0 }
            return UInt32(Unmanaged<RingRenderer>.fromOpaque(data).takeUnretainedValue().render(frames: Int(frames), into: out))
        }
    }

    private func render(frames: Int, into out: UnsafeMutablePointer<Float>) -> Int {
        guard frames == ring.frames else { return 0 }
        let queued = ring.queued
        var count = ring.read(into: out)
        if count == nil && !late {
            AudioRing.drain(ring.filled)
            count = ring.read(into: out)
            if count == nil, AudioRing.wait(ring.filled, milliseconds: deadlineMilliseconds) { count = ring.read(into: out) }
        }
        guard let count else {
            late = true
            fadeIn = true
            missedFrames.add(1, ordering: .relaxed)
            let ramp = min(RingRenderer.rampFrames, frames)
            for index in 0..<ramp {
                let gain = Float(ramp - 1 - index) / Float(ramp)
                out[index * 2] = last.0 * gain
                out[index * 2 + 1] = last.1 * gain
            }
            last = (0, 0)
            return ramp
        }
        late = false
        missedFrames.store(0, ordering: .relaxed)
        framesTaken.add(1, ordering: .relaxed)
        framesQueued.add(max(queued, 1), ordering: .relaxed)
        if fadeIn {
            fadeIn = false
            let ramp = min(RingRenderer.rampFrames, count)
            for index in 0..<ramp {
                let gain = Float(index) / Float(ramp)
                out[index * 2] *= gain
                out[index * 2 + 1] *= gain
            }
        }
        if count > 0 { last = (out[count * 2 - 2], out[count * 2 - 1]) }
        return count
    }
}
