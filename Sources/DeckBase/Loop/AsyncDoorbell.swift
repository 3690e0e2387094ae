import CLibUV
import CProcess
import Glibc
import Synchronization

/// Wakes the loop from any thread; the loop then runs `action` once for any number of rings.
/// Rings carry no payload (they coalesce): senders put their data in a queue first.
/// An eventfd the loop polls, rather than `uv_async_t`: a ring is one atomic flag and at most one
/// `write`, which the loop takes as an edge with no `read`, and there is no window in which the
/// woken loop waits for the ringer to finish its send (libuv's async protocol spins, then yields,
/// which under load puts the loop behind busy threads).
/// Loop-thread-confined, except `ringer`, which any thread may use.
public final class AsyncDoorbell: LoopHandle {
    /// The any-thread side: rings until the doorbell is closed, never after.
    public final class Ringer: Sendable {
        let descriptor: Int32
        /// Set by the first ring after the loop last looked; later rings skip the `write`.
        fileprivate let pending = Atomic<Bool>(false)
        fileprivate let closed = Atomic<Bool>(false)
        fileprivate let inFlight = Atomic<Int>(0)

        fileprivate init(descriptor: Int32) { self.descriptor = descriptor }

        /// Wakes the loop; returns false once the doorbell is closed. Lock-free.
        @discardableResult
        public func ring() -> Bool {
            // Sequentially consistent, as `close` is: each side stores, then loads what the other stored.
            inFlight.add(1, ordering: .sequentiallyConsistent)
            defer { inFlight.subtract(1, ordering: .releasing) }
            guard !closed.load(ordering: .sequentiallyConsistent) else { return false }
            if pending.exchange(true, ordering: .acquiringAndReleasing) { return true }
            // Edge-triggered, the counter is never read again: it gains at most one per wake-up,
            // far below its limit of 2^64 - 2.
            return eventfd_write(descriptor, 1) == 0
        }
    }

    public let ringer: Ringer
    private let action: () -> Void
    /// Whether epoll watches the eventfd edge-triggered, so a wake-up needs no `read` to clear it:
    /// nil until the first wake-up asks for it.
    private var edgeTriggered: Bool?

    public init(loop: EventLoop, _ action: @escaping () -> Void) throws(LoopError) {
        self.action = action
        let descriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        if descriptor < 0 { throw LoopError("eventfd", code: -errno) }
        ringer = Ringer(descriptor: descriptor)
        super.init(owning: loop)
        let poll = raw.assumingMemoryBound(to: uv_poll_t.self)
        var status = uv_poll_init(loop.raw, poll, descriptor)
        if status < 0 {
            discardUninitialised()
            Glibc.close(descriptor)
            throw LoopError("uv_poll_init", code: status)
        }
        attach()
        status = uv_poll_start(poll, Int32(UV_READABLE.rawValue)) { poll, _, _ in
            guard let doorbell = LoopHandle.owner(poll, as: AsyncDoorbell.self) else { return }
            doorbell.answer()
            doorbell.action()
        }
        if status < 0 {
            close()
            throw LoopError("uv_poll_start", code: status)
        }
    }

    /// Takes the rings so far, so a ring after this point writes again. [loop thread]
    /// Level-triggered, as libuv first registers the eventfd, it clears the counter, then the flag;
    /// the first wake-up then asks epoll for edges, which saves a `read` per wake-up. Edge-triggered
    /// it never reads: a read racing a ring's `write` could empty the counter before epoll reports
    /// that write's edge, and the wake-up would be lost.
    private func answer() {
        if edgeTriggered != true {
            var count: eventfd_t = 0
            _ = eventfd_read(ringer.descriptor, &count)
        }
        ringer.pending.store(false, ordering: .sequentiallyConsistent)
        if edgeTriggered == nil { edgeTriggered = deck_uv_poll_edge_triggered(loop.raw, ringer.descriptor) == 0 }
    }

    public override func close() {
        guard !isClosed else { return }
        ringer.closed.store(true, ordering: .sequentiallyConsistent)
        while ringer.inFlight.load(ordering: .sequentiallyConsistent) != 0 {}
        super.close()
        Glibc.close(ringer.descriptor)  // safe once uv_close has stopped the poll
    }
}
