import Foundation
import Synchronization
import Testing
@testable import DeckIsolation

/// The mix's end of a host's audio ring when the host closes its stream.
@Suite struct RingRendererTests {
    /// A ring of 8 frames of 960, full: frame n holds the value n + 1 in every sample.
    private func fullRing() throws -> AudioRing {
        let ring = try AudioRing(frames: 960, slots: 8, name: "ring-renderer-test")
        for frame in 0..<8 {
            ring.write { out, frames in
                out.update(repeating: Float(frame + 1), count: frames * 2)
                return frames
            }
        }
        return ring
    }

    private final class Flag: Sendable {
        let raised = Atomic<Bool>(false)
    }

    /// Pulls a frame every 2 ms on a thread of its own, as the audio thread would, until `stop`.
    private func mix(_ renderer: RingRenderer, until stop: Flag) -> Thread {
        Thread {
            let source = renderer.source
            let out = UnsafeMutablePointer<Float>.allocate(capacity: 960 * 2)
            defer { out.deallocate() }
            while !stop.raised.load(ordering: .acquiring) {
                _ = source.render(source.plugin, 960, out)
                usleep(2_000)
            }
        }
    }

    @Test func inFreewheelWhatTheHostRenderedAheadIsMixedBeforeTheStreamCloses() throws {
        let ring = try fullRing()
        let renderer = RingRenderer(ring: ring, deadline: .init(milliseconds: 150, waitsWhileLate: true))
        let stop = Flag()
        mix(renderer, until: stop).start()
        var queuedAtClose = -1
        let began = Date()
        renderer.drain {
            queuedAtClose = ring.queued
            usleep(10_000)  // the loop takes a while to close: the mix pulls the dry ring meanwhile
            stop.raised.store(true, ordering: .releasing)  // the closed stream is pulled no more
        }
        #expect(queuedAtClose == 0, "the 8 frames were mixed first")
        #expect(renderer.lateFrames.load(ordering: .relaxed) == 0, "a closing host is not waited for, nor counted late")
        #expect(Date().timeIntervalSince(began) < 0.15, "the drain ends with the ring, not at the deadline")
    }

    @Test func pacedTheStreamClosesAtOnce() throws {
        let ring = try fullRing()
        let renderer = RingRenderer(ring: ring, deadline: .init(milliseconds: 10, waitsWhileLate: false))
        var queuedAtClose = -1
        renderer.drain { queuedAtClose = ring.queued }
        #expect(queuedAtClose == 8, "real time does not wait for what was rendered ahead")
    }
}
