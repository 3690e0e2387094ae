import DeckRuntime
import Glibc
import Synchronization

/// Why an embedding call failed: a deck_runtime_status_t and a message.
struct EmbeddingError: Error {
    enum Code: Int32 { case invalid = -1, state = -2, config = -3, `internal` = -4, timeout = -5, busy = -6 }
    var code: Code
    var message: String
    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// The C API of deck/runtime.h. A handle is a number issued once, never an address that could be
/// reused: a live one is found, a destroyed one is told apart (DECK_RUNTIME_E_STATE) from a NULL or
/// foreign one (DECK_RUNTIME_E_INVALID), so a stale pointer never reaches another runtime.
public enum EmbeddingAPI {
    public typealias ReplyFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void
    public typealias TaggedReplyFunction = @convention(c) (UnsafeMutableRawPointer?, UInt64, UnsafePointer<CChar>?) -> Void
    public typealias EventFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void
    public typealias WakeupFunction = @convention(c) (UnsafeMutableRawPointer?) -> Void
    public typealias PacketFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int, Int64, UInt32, UInt32, Bool) -> Void
    public typealias LogFunction = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void
    public typealias PCMFunction = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<Float>?, UInt32) -> Void

    static let major: UInt32 = 1, minor: UInt32 = 4

    /// What `deck_runtime_version_string` returns: made once, never freed, never written.
    nonisolated(unsafe) static let versionString: UnsafePointer<CChar> = {
        let text = "Deck \(DeckVersion.string) (runtime API \(major).\(minor), plugin ABI \(PluginABI.major).\(PluginABI.minor))"
        return UnsafePointer(strdup(text)!)
    }()

    /// Every handle created and not yet destroyed, by number, and the next number to issue.
    private static let handles = PosixMutex<(live: [UInt: EmbeddedClient], next: UInt)>(([:], 1))
    /// Handle numbers are `base | n << 4`: a pattern no small integer or usual heap address has.
    private static let base: UInt = 0x0DEC << 48

    static func handle(_ pointer: OpaquePointer?) -> EmbeddedRuntime? { try? lookup(pointer) }

    /// The live runtime behind a handle, or why there is none.
    static func lookup(_ pointer: OpaquePointer?) throws(EmbeddingError) -> EmbeddedRuntime {
        let client = try lookupClient(pointer)
        guard client.runtime.shared.withLock({ $0.mode }) != .destroyed else {
            throw EmbeddingError(.state, "the runtime of this client was destroyed")
        }
        return client.runtime
    }

    /// The live handle behind a pointer, or why there is none.
    static func lookupClient(_ pointer: OpaquePointer?) throws(EmbeddingError) -> EmbeddedClient {
        guard let pointer else { throw EmbeddingError(.invalid, "the handle is NULL") }
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(pointer)))
        let (found, issued) = handles.withLock { state in
            (state.live[key], key & base == base && key & 0xF == 0 && (key & ~base) >> 4 < state.next)
        }
        if let found { return found }
        throw issued ? EmbeddingError(.state, "the handle was destroyed") : EmbeddingError(.invalid, "not a handle deck_runtime_create returned")
    }

    /// A client handle of a live runtime's and not destroyed, with its runtime.
    static func liveClient(_ pointer: OpaquePointer?) throws(EmbeddingError) -> EmbeddedClient {
        let client = try lookupClient(pointer)
        _ = try lookup(pointer)
        return client
    }

    private static func issue(_ client: EmbeddedClient) -> OpaquePointer {
        let key = handles.withLock { state in
            defer { state.next += 1 }
            let key = base | state.next << 4
            state.live[key] = client
            return key
        }
        return OpaquePointer(bitPattern: key)!
    }

    private static func forget(_ pointer: OpaquePointer) {
        handles.withLock { _ = $0.live.removeValue(forKey: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(pointer)))) }
    }

    static func create(_ config: String?) throws(EmbeddingError) -> OpaquePointer {
        var configuration = RuntimeConfiguration()
        if let config {
            let json: JSONValue
            do { json = try JSONValue.parse(config) } catch { throw EmbeddingError(.config, "the config is not JSON: \(error)") }
            do { try configuration.apply(json, from: "config") } catch { throw EmbeddingError(.config, error.description) }
        }
        let embedded: EmbeddedRuntime
        do { embedded = try EmbeddedRuntime(configuration: configuration) } catch {
            throw EmbeddingError(.internal, error.description)
        }
        let primary = EmbeddedClient(runtime: embedded, name: "primary", isPrimary: true)
        embedded.add(primary)  // the loop does not run yet: this thread may touch it
        return issue(primary)
    }

    /// A new client of the runtime behind `pointer`, served from the loop's next turn.
    static func createClient(_ pointer: OpaquePointer?, name: String) throws(EmbeddingError) -> OpaquePointer {
        let embedded = try lookup(pointer)
        guard (1...64).contains(name.utf8.count), name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0.properties.numericType != nil || "-_.".unicodeScalars.contains($0) }) else {
            throw EmbeddingError(.invalid, "a client name is 1–64 letters, digits, '-', '_' or '.' (it names the client's focus owner)")
        }
        let client = EmbeddedClient(runtime: embedded, name: name, isPrimary: false)
        try embedded.submit(EmbeddedRuntime.Job(action: { [embedded] in embedded.add(client) }))
        return issue(client)
    }

    static func destroy(_ pointer: OpaquePointer?) throws(EmbeddingError) {
        let client = try lookupClient(pointer)
        let embedded = client.runtime
        guard client.isPrimary else { return try destroyClient(client, pointer!) }
        // From inside one of its callbacks it would join or tear down the loop that is calling.
        if embedded.isCallbackThread {
            throw EmbeddingError(.state, "destroy from inside one of the runtime's callbacks; return from it first")
        }
        let mode = embedded.shared.withLock { state -> EmbeddedRuntime.Mode in
            defer { state.mode = .destroyed }
            return state.mode
        }
        guard mode != .destroyed else { throw EmbeddingError(.state, "the handle is being destroyed") }
        forget(pointer!)
        switch mode {
        case .ownThread:
            embedded.stopThread()
        case .idle, .integratorLoop, .destroyed:
            embedded.wakeups.stopCalling()
            embedded.drive {
                embedded.runtime.loop.thread.claim()
                embedded.stop()
                while embedded.runtime.loop.runNoWait() {}
            }
        }
        embedded.wakeups.finish()
    }

    /// Ends a client: no callback of its runs once this returns; its connection closes on the loop
    /// (its focus goes, as when an HMI's socket closes). A client of a destroyed runtime is only freed.
    private static func destroyClient(_ client: EmbeddedClient, _ pointer: OpaquePointer) throws(EmbeddingError) {
        let embedded = client.runtime
        if embedded.isAudioThread {
            throw EmbeddingError(.state, "destroy from inside the audio-thread packet callback; return from it first")
        }
        let onLoop = embedded.isRuntimeThread || embedded.isDrivingThread
        client.markClosed()  // nothing new is delivered; one under way ends before the loop runs `remove`
        forget(pointer)
        let mode = embedded.shared.withLock { $0.mode }
        switch mode {
        case .destroyed:
            return
        case _ where onLoop:
            embedded.remove(client)
        case .ownThread:
            let done = SyncAnswer()
            guard (try? embedded.submit(EmbeddedRuntime.Job(action: { embedded.remove(client); done.set("") }))) != nil else { return }
            _ = done.wait(until: MonotonicClock.milliseconds + 10_000)
        case .idle, .integratorLoop:
            embedded.drive {
                embedded.runtime.loop.thread.claim()
                embedded.remove(client)
            }
        }
    }

    static func start(_ embedded: EmbeddedRuntime) throws(EmbeddingError) {
        try embedded.shared.withLock { state throws(EmbeddingError) in
            guard state.mode == .idle else { throw EmbeddingError(.state, "the runtime runs already (\(state.mode))") }
            state.mode = .ownThread
        }
        do { try embedded.startThread() } catch {
            embedded.shared.withLock { $0.mode = .idle }
            throw error
        }
    }

    /// Runs one pass of the loop in mode 2 (starting the runtime on the first).
    static func process(_ embedded: EmbeddedRuntime) throws(EmbeddingError) {
        if embedded.isDrivingThread || embedded.isAudioThread {
            throw EmbeddingError(.state, "process from inside one of its callbacks; return from it first")
        }
        try enterIntegratorLoop(embedded)
        embedded.drive {
            embedded.runtime.loop.thread.claim()
            embedded.startIfNeeded()
            embedded.runtime.loop.runNoWait()
            embedded.wakeups.arm(timeout: embedded.runtime.loop.backendTimeout)
        }
    }

    static func enterIntegratorLoop(_ embedded: EmbeddedRuntime) throws(EmbeddingError) {
        try embedded.shared.withLock { state throws(EmbeddingError) in
            switch state.mode {
            case .idle: state.mode = .integratorLoop
            case .integratorLoop: break
            case .ownThread: throw EmbeddingError(.state, "the runtime runs on its own thread (deck_runtime_start); do not process it")
            case .destroyed: throw EmbeddingError(.state, "the runtime is being destroyed")
            }
        }
    }

    /// A call and its answer, waited for on another thread, or run through the loop on its own; nil
    /// for a notification, which has none (it is sent, not waited for).
    static func callSync(_ client: EmbeddedClient, _ request: String, timeoutMilliseconds: Int) throws(EmbeddingError) -> String? {
        let embedded = client.runtime
        if embedded.isCallbackThread {
            throw EmbeddingError(.state, "call_sync from inside one of the runtime's callbacks would wait for itself; use deck_runtime_call")
        }
        let mode = embedded.shared.withLock { $0.mode }
        guard mode != .idle else {
            throw EmbeddingError(.state, "the runtime does not run yet: call deck_runtime_start, or deck_runtime_process from your loop, first")
        }
        if EmbeddedRuntime.isNotification(request) {
            try embedded.submit(EmbeddedRuntime.Job(client: client, request: request))
            if mode == .integratorLoop { try process(embedded) }
            return nil
        }
        let deadline = MonotonicClock.milliseconds + timeoutMilliseconds
        let box = SyncAnswer()
        if mode == .ownThread {
            let job = EmbeddedRuntime.Job(client: client, request: request, reply: { user, response in
                Unmanaged<SyncAnswer>.fromOpaque(user!).takeRetainedValue().set(response.map { String(cString: $0) } ?? "")
            }, user: Unmanaged.passRetained(box).toOpaque())
            do { try embedded.submit(job) } catch {
                Unmanaged.passUnretained(box).release()  // the reply that would have taken it never comes
                throw error
            }
        } else {
            try enterIntegratorLoop(embedded)
            embedded.drive {
                embedded.runtime.loop.thread.claim()
                embedded.startIfNeeded()
                embedded.answer(request, client: client) { box.set($0) }
            }
            // A deferred answer comes from the loop: run it here until it does.
            while box.current == nil && MonotonicClock.milliseconds < deadline {
                try process(embedded)
                if box.current == nil { usleep(1_000) }
            }
        }
        guard let response = box.wait(until: deadline) else { throw EmbeddingError(.timeout, "no answer within \(timeoutMilliseconds) ms") }
        return response
    }

    /// The packet callback's latency histogram of a live handle, for deck-bench.
    package static func packetLatency(of pointer: OpaquePointer?) -> LatencyHistogram? { handle(pointer)?.packetLatency }

}

/// One synchronous call's answer, handed from the loop thread to the waiting one.
final class SyncAnswer: @unchecked Sendable {  // Guarded by `lock` and `ready`; `arrived` only hints.
    private var lock = pthread_mutex_t()
    /// Set with the answer, so a waiter can spin briefly before sleeping: most answers take microseconds.
    private let arrived = Atomic<Bool>(false)
    private var ready = pthread_cond_t()
    private var response: String?

    init() {
        pthread_mutex_init(&lock, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(&ready, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(&lock)
        pthread_cond_destroy(&ready)
    }

    var current: String? {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return response
    }

    func set(_ text: String) {
        pthread_mutex_lock(&lock)
        response = text
        arrived.store(true, ordering: .releasing)
        pthread_mutex_unlock(&lock)
        // After the unlock: a waiter woken under the lock would only wait again for it.
        pthread_cond_signal(&ready)
    }

    /// Calls waiting now: a waiter spins only when it is alone (with others queued, answers come
    /// one by one and a spinner takes the CPU the runtime's thread needs for them).
    private static let waiting = Atomic<Int>(0)
    /// Lone calls left that sleep at once, and how many the next spin that fails sets: under load
    /// a spin is not answered in time and only takes CPU from the thread that answers, so each
    /// failure doubles the calls that skip it (up to 256, under 1% of calls probing), and a spin
    /// answered in time ends the back-off.
    private static let spinSkips = Atomic<Int>(0)
    private static let spinBackoff = Atomic<Int>(1)
    private static let canSpin = sysconf(Int32(_SC_NPROCESSORS_ONLN)) > 1
    /// How long a waiter spins: a few of the quick answers most calls get.
    private static let spinNanoseconds = 50_000
    /// After this the spin yields each round: the runtime's thread, woken by the call, may be queued
    /// on this very CPU, and then a pure spin is answered only once it gives up (p99 was the spin's
    /// length plus 10 µs, whatever the length).
    private static let yieldAfterNanoseconds = 15_000

    /// The answer, or nil at `deadline` (monotonic ms). A lone waiter spins briefly without system
    /// calls while that pays, then sleeps on the condition.
    func wait(until deadline: Int) -> String? {
        let alone = SyncAnswer.waiting.add(1, ordering: .relaxed).newValue == 1
        defer { SyncAnswer.waiting.subtract(1, ordering: .relaxed) }
        if alone && SyncAnswer.canSpin && SyncAnswer.spinSkips.load(ordering: .relaxed) > 0 {
            SyncAnswer.spinSkips.subtract(1, ordering: .relaxed)
        } else if alone && SyncAnswer.canSpin {
            let start = MonotonicClock.nanoseconds
            var rounds = 0
            while !arrived.load(ordering: .acquiring) {
                rounds &+= 1
                guard rounds & 63 == 0 else { continue }
                let spun = MonotonicClock.nanoseconds - start
                if spun > SyncAnswer.spinNanoseconds { break }
                if spun > SyncAnswer.yieldAfterNanoseconds { sched_yield() }
            }
            if arrived.load(ordering: .acquiring) {
                SyncAnswer.spinBackoff.store(1, ordering: .relaxed)
            } else {
                let skips = SyncAnswer.spinBackoff.load(ordering: .relaxed)
                SyncAnswer.spinSkips.store(skips, ordering: .relaxed)
                SyncAnswer.spinBackoff.store(min(skips * 2, 256), ordering: .relaxed)
            }
        }
        var until = timespec(tv_sec: deadline / 1000, tv_nsec: (deadline % 1000) * 1_000_000)
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        while response == nil {
            if pthread_cond_timedwait(&ready, &lock, &until) == ETIMEDOUT { break }
        }
        return response
    }
}
