import DeckBase
import Glibc
import Synchronization

/// Hands each packet of one sink's mix to a C function on the audio thread itself, as it is
/// encoded: no ring and no wake-up between (the embedding API's audio-thread packet callback).
/// The function is replaced from any thread; once `set` returns, the one it replaced is not
/// running and will not be called again.
public final class PacketTap: @unchecked Sendable {  // `current` is swapped atomically; a registration is freed only once no call can read it.
    /// user, packet, size, granule, samples, pre-skip, end of stream: `deck_runtime_packet_fn`.
    public typealias Function = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int, Int64, UInt32, UInt32, Bool) -> Void

    private struct Registration {
        let function: Function
        let user: UnsafeMutableRawPointer?
    }

    private let current = Atomic<UnsafeMutablePointer<Registration>?>(nil)
    /// Calls in progress (the audio thread's; one at a time, or two while a stuck one is abandoned).
    private let calling = Atomic<Int>(0)
    /// CLOCK_MONOTONIC nanoseconds when the call in progress began; 0 between calls.
    private let callBegan = Atomic<Int>(0)
    private let setting = Mutex(())

    public init() {}

    deinit { current.load(ordering: .relaxed)?.deallocate() }

    public var isSet: Bool { current.load(ordering: .relaxed) != nil }

    /// Replaces the function (nil: none). Waits until a call of the old one has returned, except
    /// when `fromItsCall` (called from inside the function, which then finishes). [any-thread]
    public func set(_ function: Function?, user: UnsafeMutableRawPointer?, fromItsCall: Bool = false) {
        setting.withLock { _ in
            let next = function.map { function -> UnsafeMutablePointer<Registration> in
                let registration = UnsafeMutablePointer<Registration>.allocate(capacity: 1)
                registration.initialize(to: Registration(function: function, user: user))
                return registration
            }
            // Sequentially consistent with `deliver`: a call either sees the new registration or
            // was counted before the exchange, and then is waited for.
            let old = current.exchange(next, ordering: .sequentiallyConsistent)
            if !fromItsCall {
                var pause = timespec(tv_sec: 0, tv_nsec: 20_000)
                while calling.load(ordering: .sequentiallyConsistent) != 0 { nanosleep(&pause, nil) }
            }
            old?.deallocate()  // a call in progress copied it before calling
        }
    }

    /// Calls the function with one packet, if one is set. [audio-thread]
    func deliver(_ packet: UnsafePointer<UInt8>, count: Int, granule: Int64, samples: Int, preSkip: Int, isLast: Bool) {
        guard current.load(ordering: .relaxed) != nil else { return }
        calling.add(1, ordering: .sequentiallyConsistent)
        defer { calling.subtract(1, ordering: .releasing) }
        guard let registration = current.load(ordering: .sequentiallyConsistent)?.pointee else { return }
        callBegan.store(MonotonicClock.nanoseconds, ordering: .relaxed)
        registration.function(registration.user, packet, count, granule, UInt32(clamping: samples), UInt32(clamping: preSkip), isLast)
        callBegan.store(0, ordering: .relaxed)
    }

    /// How long the call in progress has run, in nanoseconds; nil between calls.
    var currentCall: Int? {
        let began = callBegan.load(ordering: .relaxed)
        return began == 0 ? nil : MonotonicClock.nanoseconds - began
    }
}
