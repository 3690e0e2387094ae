import DeckRuntime
import Glibc
import Synchronization

/// One runtime behind `deck_runtime_t` handles: the runtime, its handles (the first one and its
/// clients), the inbox that carries calls from any thread to the loop, and how the loop is driven
/// (its own thread, or the integrator's `process`). The runtime is touched only on the loop
/// thread; what other threads touch is in `shared`.
final class EmbeddedRuntime: @unchecked Sendable {  // Cross-thread state is in `shared` (a lock) and atomics; the rest is loop-thread-confined.
    enum Mode: Equatable { case idle, ownThread, integratorLoop, destroyed }

    /// A call (or a change of a handle's own) waiting for the loop.
    struct Job: @unchecked Sendable {  // Its pointers are the integrator's, handed back untouched; `action` runs on the loop thread only.
        var client: EmbeddedClient?
        var request = ""
        var reply: EmbeddingAPI.ReplyFunction?
        var user: UnsafeMutableRawPointer?
        /// The call's reply tag: its answer goes to the client's reply callback or queue.
        var tag: UInt64?
        var action: (() -> Void)?
    }

    struct Shared {
        var mode = Mode.idle
        var inbox: [Job] = []
        var stopping = false
        var packet: Registered<EmbeddingAPI.PacketFunction>?
        var pcm: Registered<EmbeddingAPI.PCMFunction>?
    }

    let runtime: Runtime
    let shared = PosixMutex(Shared())
    /// Where the runtime's log lines go: the integrator's callback, or nowhere (a library never prints).
    let logTarget = LogTarget()
    /// Held while the loop runs in mode 2, so destroy and process never overlap.
    private let driving = Mutex(())
    /// The thread inside `drive`, so a callback that calls back in is refused rather than deadlocked.
    private let drivingThread = Atomic<UInt>(0)
    private let dispatcher: RPCDispatcher
    private let doorbell: AsyncDoorbell
    /// Takes packets for the packet callback, each at once while one is set.
    private let packetSink: CallbackSink
    private var started = false
    private var thread: pthread_t?
    /// The runtime's own thread once it runs (mode 1), to refuse calls that would wait for it.
    private let threadID = Atomic<UInt>(0)
    let wakeups = WakeupThread()
    /// From the audio thread's encode to the packet callback's call, for deck-bench.
    package let packetLatency = LatencyHistogram()
    /// Its handles not destroyed: the first one and the clients. Emptied when the runtime stops,
    /// which ends the reference cycle between a handle and its runtime. Loop thread.
    private var clients: [ObjectIdentifier: EmbeddedClient] = [:]

    /// The ids of the runtime's audio zones, for handles binding to one from any thread.
    let zoneIDs: [String]

    init(configuration: RuntimeConfiguration) throws(RuntimeError) {
        zoneIDs = configuration.effectiveZones.map(\.id)
        runtime = try Runtime(configuration: configuration, logger: Logger(level: configuration.logLevel) { [logTarget] in logTarget.forward($0) })
        dispatcher = runtime.makeDispatcher()
        var drain: (() -> Void)?, deliver: ((EncodedPacket) -> Void)?
        do { doorbell = try AsyncDoorbell(loop: runtime.loop) { drain?() } } catch { throw .loop(error) }
        packetSink = CallbackSink(name: "embedding", batchMilliseconds: .max) { deliver?($0) }
        drain = { [unowned self] in drainInbox() }
        deliver = { [unowned self] in deliverPacket($0) }
        let sink = runtime.output.attach(packetSink, label: SinkLabel(name: "Embedding", kind: .network))
        runtime.output.tapPackets(ofSink: sink.id)  // the audio-thread packet callback takes the same mix
    }

    // MARK: Any thread

    /// Calls waiting for the loop beyond which a new one is refused (`DECK_RUNTIME_E_BUSY`).
    static let maxWaitingCalls = 65_536

    /// Queues a call for the loop and wakes it; refused once destroy began or while too many calls wait.
    func submit(_ job: Job) throws(EmbeddingError) {
        try shared.withLock { state throws(EmbeddingError) in
            guard state.mode != .destroyed, !state.stopping else { throw EmbeddingError(.state, "the runtime is being destroyed") }
            guard job.action != nil || state.inbox.count < EmbeddedRuntime.maxWaitingCalls else {
                throw EmbeddingError(.busy, "\(EmbeddedRuntime.maxWaitingCalls) calls wait for the runtime already; try again later")
            }
            state.inbox.append(job)
        }
        doorbell.ringer.ring()
    }

    // MARK: Loop thread

    /// Loads the plugins and starts the output, once, on the loop thread. A packet callback set
    /// before then is in force from the first frame, not from the job that follows.
    func startIfNeeded() {
        guard !started else { return }
        started = true
        applyPacketBatch()
        do { try runtime.start() } catch { runtime.logger.error("embedding", "\(error)") }
    }

    /// Runs the calls waiting for the loop for at most the turn budget, the rest on the next turn;
    /// once destroy began, each is answered with an error instead of run, so a flood of calls
    /// never holds the audio, the timers or the destroy up.
    private func drainInbox() {
        let deadline = MonotonicClock.milliseconds + runtime.configuration.control.turnBudgetMs
        let (jobs, stoppingAtStart) = shared.withLock { state in
            defer { state.inbox = [] }
            return (state.inbox, state.stopping)
        }
        var stopping = stoppingAtStart
        var next = 0
        while next < jobs.count {
            run(jobs[next], refused: stopping)
            next += 1
            guard next % 64 == 0, !stopping else { continue }
            stopping = shared.withLock { $0.stopping }
            if !stopping && MonotonicClock.milliseconds >= deadline {
                let rest = jobs[next...]
                shared.withLock { $0.inbox.insert(contentsOf: rest, at: 0) }
                doorbell.ringer.ring()  // the rest on the next turn
                return
            }
        }
        if stopping || shared.withLock({ $0.stopping }) { stop() }
    }

    private func run(_ job: Job, refused: Bool) {
        if let action = job.action { return action() }
        guard let client = job.client, !client.isClosed else { return }
        let deliver = { (response: String) in
            if let tag = job.tag {
                client.replied(tag: tag, response)
            } else if let reply = job.reply, !client.isClosed {
                response.withCString { reply(job.user, $0) }
            }
        }
        if refused {
            guard job.tag != nil || job.reply != nil else { return }
            dispatcher.refusal(of: job.request, .commandFailed("the runtime is being destroyed; the call was not run")).map(deliver)
        } else {
            answer(job.request, client: client, deliver)
        }
    }

    /// Answers `request` on `client`'s connection through `reply`, now or once its deferred answer comes.
    func answer(_ request: String, client: EmbeddedClient, _ reply: @escaping (String) -> Void) {
        runtime.events.hold()
        defer { runtime.events.release() }
        dispatcher.handle(request, connection: client.connection, reply: reply)
    }

    /// Starts serving a new handle: on the loop thread, or before the runtime first runs.
    func add(_ client: EmbeddedClient) {
        clients[ObjectIdentifier(client)] = client
        runtime.events.add(client.connection)
    }

    /// Ends a client on the loop thread: the focus it requested goes, its subscriptions end.
    func remove(_ client: EmbeddedClient) {
        guard clients.removeValue(forKey: ObjectIdentifier(client)) != nil else { return }
        client.close()
    }

    /// The packet callback was set or cleared: with one, each packet goes out as soon as it is
    /// encoded; with none, the embedding's sink lets the others' batch stand. On the loop thread, by a job.
    func packetCallbackChanged() {
        try? submit(Job(action: { [unowned self] in applyPacketBatch() }))
    }

    private func applyPacketBatch() {
        packetSink.batchMilliseconds = shared.withLock { $0.packet } == nil ? .max : 0
        runtime.output.applySinkBatch()
    }

    private func deliverPacket(_ packet: EncodedPacket) {
        guard let callback = shared.withLock({ $0.packet }) else { return }
        packetLatency.record(MonotonicClock.nanoseconds - packet.encodedAt)
        packet.bytes.withUnsafeBufferPointer { bytes in
            callback.function(callback.user, bytes.baseAddress, bytes.count, packet.granule(), UInt32(packet.samples), UInt32(packet.preSkip), packet.isLast)
        }
    }

    /// Starts copying the mix for the PCM tap, on the loop thread once it runs.
    func enablePCMTapSoon() {
        try? submit(Job(action: { [unowned self] in
            runtime.audio.delivery.onPCM = { [unowned self] samples, count in
                guard let callback = shared.withLock({ $0.pcm }) else { return }
                callback.function(callback.user, samples, UInt32(count / 2))
            }
            runtime.audio.enablePCMTap()
        }))
    }

    /// Ends the runtime on the loop thread: focus asked through any handle is released, the output
    /// ends with end of stream, plugins are destroyed, every handle closes so the loop can end.
    func stop() {
        for job in shared.withLock({ state in defer { state.inbox = [] }; return state.inbox }) { run(job, refused: true) }
        for client in clients.values { client.close() }
        clients = [:]
        runtime.shutdown()
        doorbell.close()
    }

    // MARK: Mode 1

    func startThread() throws(EmbeddingError) {
        let context = Unmanaged.passRetained(self).toOpaque()
        var handle = pthread_t()
        let status = pthread_create(&handle, nil, { context in
            let embedded = Unmanaged<EmbeddedRuntime>.fromOpaque(context!).takeRetainedValue()
            embedded.threadID.store(UInt(pthread_self()), ordering: .releasing)
            embedded.runtime.loop.thread.claim()
            embedded.startIfNeeded()
            embedded.runtime.loop.run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<EmbeddedRuntime>.fromOpaque(context).release()
            throw EmbeddingError(.internal, "cannot start the runtime's thread: \(String(cString: strerror(status)))")
        }
        thread = handle
    }

    /// Asks the loop to stop and waits for its thread.
    func stopThread() {
        shared.withLock { $0.stopping = true }
        doorbell.ringer.ring()
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    var isRuntimeThread: Bool { threadID.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// True on the audio thread: inside the audio-thread packet callback.
    var isAudioThread: Bool { runtime.audio.audioThread.isCurrent }

    /// True where waiting for the loop would wait for the caller itself: on the runtime's thread,
    /// inside `process`, or in the audio-thread packet callback (the loop waits for that thread).
    var isCallbackThread: Bool { isRuntimeThread || isDrivingThread || isAudioThread }

    /// Runs `body` holding the loop for mode 2 (process, a synchronous call, destroy).
    func drive<T>(_ body: () -> T) -> T {
        driving.withLock { _ in
            drivingThread.store(UInt(pthread_self()), ordering: .releasing)
            defer { drivingThread.store(0, ordering: .releasing) }
            return body()
        }
    }

    /// True on the thread running the loop in mode 2: inside process or a callback it made.
    var isDrivingThread: Bool { drivingThread.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// A request with no id (or a batch of only such): it gets no answer.
    static func isNotification(_ request: String) -> Bool {
        guard let value = try? JSONValue.parse(request) else { return false }
        let messages = value.arrayValue ?? [value]
        return !messages.isEmpty && messages.allSatisfy { message in
            if case .object(let members) = message { return members["id"] == nil }
            return false
        }
    }
}

/// An integrator's C callback and the pointer it gets back.
struct Registered<Function>: @unchecked Sendable {  // A C function pointer and the integrator's opaque pointer, never dereferenced here.
    let function: Function
    let user: UnsafeMutableRawPointer?
}

/// The integrator's log callback, called on the thread that logs.
final class LogTarget: Sendable {
    let callback = Mutex<Registered<EmbeddingAPI.LogFunction>?>(nil)

    func forward(_ record: LogRecord) {
        guard let log = callback.withLock({ $0 }) else { return }
        record.source.withCString { source in
            record.message.withCString { message in log.function(log.user, Int32(record.level.rawValue), source, message) }
        }
    }
}
