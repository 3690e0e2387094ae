import DeckAudio
import DeckBase
import Glibc
import Synchronization

/// The host process's audio thread: renders the plugin ahead into the shared ring while its
/// stream is open, woken by the runtime each time it takes a frame.
final class HostRenderer: @unchecked Sendable {  // `source` is written once before the thread starts; the flags are atomic.
    let thread = ThreadIdentity()
    private let ring: AudioRing
    private var source: RenderSource?
    private let rendering = Atomic<Bool>(false)
    private let inRender = Atomic<Bool>(false)

    init(ring: AudioRing) { self.ring = ring }

    /// Starts the thread that pulls `source`.
    func start(_ source: RenderSource) {
        self.source = source
        var handle = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&handle, nil, { context in
            Unmanaged<HostRenderer>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        pthread_detach(handle)
    }

    /// Renders from now on (the stream opened).
    func resume() {
        rendering.store(true, ordering: .sequentiallyConsistent)
        AudioRing.ring(ring.space)
    }

    /// Stops rendering and waits (up to a second) until render() is no longer running; with
    /// `discarding`, frames the runtime has not taken are dropped too.
    func pause(discarding: Bool = false) {
        rendering.store(false, ordering: .sequentiallyConsistent)
        for _ in 0..<10_000 where inRender.load(ordering: .sequentiallyConsistent) { usleep(100) }
        if discarding { ring.discardUnread() }
    }

    private func run() {
        thread.claim()
        guard let source else { return }
        while true {
            if rendering.load(ordering: .sequentiallyConsistent) && ring.hasRoom {
                inRender.store(true, ordering: .sequentiallyConsistent)
                if rendering.load(ordering: .sequentiallyConsistent) {
                    ring.write { out, frames in Int(source.render(source.plugin, UInt32(frames), out)) }
                }
                inRender.store(false, ordering: .sequentiallyConsistent)
            } else {
                AudioRing.wait(ring.space, milliseconds: 100)
            }
        }
    }
}
