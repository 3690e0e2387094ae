import CLibUV
import Synchronization

/// Wakes the loop from any thread; the loop then runs `action` once for any number of rings.
/// Rings carry no payload (libuv coalesces them): senders put their data in a queue first.
/// Loop-thread-confined, except `ringer`, which any thread may use.
public final class AsyncDoorbell: LoopHandle {
    /// The any-thread side: rings until the doorbell is closed, never after.
    public final class Ringer: Sendable {
        // The raw handle's address, shared with senders; valid while `closed` is false.
        fileprivate let address = Atomic<UInt>(0)
        fileprivate let closed = Atomic<Bool>(false)
        fileprivate let inFlight = Atomic<Int>(0)

        /// Wakes the loop; returns false once the doorbell is closed. Lock-free.
        @discardableResult
        public func ring() -> Bool {
            inFlight.add(1, ordering: .acquiring)
            defer { inFlight.subtract(1, ordering: .releasing) }
            guard !closed.load(ordering: .acquiring),
                  let handle = UnsafeMutablePointer<uv_async_t>(bitPattern: address.load(ordering: .acquiring))
            else { return false }
            return uv_async_send(handle) == 0
        }
    }

    public let ringer: Ringer
    private let action: () -> Void

    public init(loop: EventLoop, _ action: @escaping () -> Void) throws(LoopError) {
        self.action = action
        ringer = Ringer()
        super.init(owning: loop)
        let status = uv_async_init(loop.raw, raw.assumingMemoryBound(to: uv_async_t.self)) { async in
            LoopHandle.owner(async, as: AsyncDoorbell.self)?.action()
        }
        if status < 0 {
            discardUninitialised()
            throw LoopError("uv_async_init", code: status)
        }
        attach()
        ringer.address.store(UInt(bitPattern: raw), ordering: .releasing)
    }

    public override func close() {
        guard !isClosed else { return }
        ringer.closed.store(true, ordering: .sequentiallyConsistent)
        while ringer.inFlight.load(ordering: .acquiring) != 0 {}
        super.close()
    }

}
