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
    /// Odd while a call is in progress: a call adds one as it begins and one as it ends, so a
    /// setter waits for the one call under way, never for a gap between back-to-back calls.
    private let calls = Atomic<Int>(0)
    /// CLOCK_MONOTONIC nanoseconds when the call in progress began; 0 between calls.
    private let callBegan = Atomic<Int>(0)

    public init() {}

    deinit { current.load(ordering: .relaxed)?.deallocate() }

    public var isSet: Bool { current.load(ordering: .relaxed) != nil }

    /// Replaces the function (nil: none). Waits until a call of the old one has returned, except
    /// when `fromItsCall` (called from inside the function, which then finishes). Takes no lock:
    /// each setter frees the registration its own exchange took out, so one waiting here never
    /// holds up the function replacing itself. [any-thread]
    public func set(_ function: Function?, user: UnsafeMutableRawPointer?, fromItsCall: Bool = false) {
        let next = function.map { function -> UnsafeMutablePointer<Registration> in
            let registration = UnsafeMutablePointer<Registration>.allocate(capacity: 1)
            registration.initialize(to: Registration(function: function, user: user))
            return registration
        }
        // Sequentially consistent with `deliver`: a call either sees the new registration or
        // began before the exchange, and then is waited for.
        let old = current.exchange(next, ordering: .sequentiallyConsistent)
        let seen = calls.load(ordering: .sequentiallyConsistent)
        if !fromItsCall && seen & 1 == 1 {
            var pause = timespec(tv_sec: 0, tv_nsec: 20_000)
            while calls.load(ordering: .sequentiallyConsistent) == seen { nanosleep(&pause, nil) }
        }
        old?.deallocate()  // a call in progress copied it before calling
    }

    /// Calls the function with one packet, if one is set. [audio-thread, one caller at a time]
    func deliver(_ packet: UnsafePointer<UInt8>, count: Int, granule: Int64, samples: Int, preSkip: Int, isLast: Bool) {
        guard current.load(ordering: .relaxed) != nil else { return }
        calls.add(1, ordering: .sequentiallyConsistent)
        defer { calls.add(1, ordering: .releasing) }
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
