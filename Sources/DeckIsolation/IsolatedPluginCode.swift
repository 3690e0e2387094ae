import DeckMedia
import DeckBase
import DeckNowPlaying
import DeckPlugins
import DeckSession
import DeckUI
import Glibc

/// A plugin whose code runs in a `deck-plugin-host` child process: each call crosses the socket
/// and waits, within `callTimeoutMilliseconds`, for its answer while serving the plugin's host
/// calls; its audio arrives through the shared ring. A host that misbehaves is killed, and its
/// end is reported once through `onEnd`. Loop-thread-confined.
final class IsolatedPluginCode: PluginCode {
    let isSwift: Bool
    private let process: ChildProcess
    private let channel: WireChannel
    private let renderer: RingRenderer
    private let host: PluginHost
    private let settings: IsolationSettings
    private let frameMilliseconds: Int
    private var offers = PluginOffers()
    private var watcher: FileWatcher?
    private var health: (any SchedulerTimer)?
    /// The heartbeat's clock: the runtime's scheduler (a test's virtual one, or the loop's).
    private let scheduler: any Scheduler
    /// When the host was last heard from, on the scheduler's clock.
    private var lastHeard: UInt64
    private var missedAtLastCheck = 0
    /// Unanswered messages (events) in the current second, and when it began.
    private var eventsThisSecond = 0
    private var secondStarted = 0
    /// More events than this in a second is a flood: an honest host sends a few heartbeats, log
    /// lines within their budget, and coalesced callback requests.
    static let maxEventsPerSecond = 2_000
    /// Why the runtime ended the host; nil while it is trusted.
    private var endReason: String?
    private var channelClosed = false
    private var isDestroyed = false
    private let onEnd: (String) -> Void
    /// Every process of the plugin, which ends with it.
    private let remains: HostRemains
    /// When the runtime's shutdown must be done by, bounding each call's wait.
    private let deadline: CallDeadline

    init(process: ChildProcess, channel: WireChannel, ring: AudioRing, isSwift: Bool, host: PluginHost, settings: IsolationSettings,
         renderDeadline: RingRenderer.Deadline, remains: HostRemains, deadline: CallDeadline, frameMilliseconds: Int, loop: EventLoop, scheduler: any Scheduler,
         onEnd: @escaping (String) -> Void) throws(LoopError) {
        self.process = process
        self.remains = remains
        self.deadline = deadline
        self.channel = channel
        renderer = RingRenderer(ring: ring, deadline: renderDeadline)
        self.isSwift = isSwift
        self.host = host
        self.settings = settings
        self.frameMilliseconds = frameMilliseconds
        self.onEnd = onEnd
        self.scheduler = scheduler
        scheduler.updateTime()
        lastHeard = scheduler.now
        watcher = try FileWatcher(loop: loop, fileDescriptor: channel.descriptor)
        health = try scheduler.makeTimer()
        watcher?.start(writable: false) { [unowned self] in readIncoming() }
        watchSilence(for: UInt64(settings.heartbeatTimeoutMilliseconds))
        process.onExit = { [unowned self] ending in ended(ending) }
    }

    deinit { stopWatching() }

    var processID: Int32? { process.pid }

    func terminate(because reason: String) -> Bool {
        end(because: reason)
        return true
    }

    // PluginCode

    func initialize() -> DeckStatus {
        guard var reply = call(.initialize) else {
            // Nothing of the runtime's depends on this plugin yet: wait for its end, to say how it ended.
            if let ending = process.waitForEnd(milliseconds: 500) { host.log(.error, text: "its process \(ending) during init") }
            return .state
        }
        let status: DeckStatus = read(&reply, or: .state)
        offers = read(&reply, or: PluginOffers())
        finish(reply, .initialize)
        return status
    }

    func activate() -> DeckStatus { status(of: .activate) }
    func deactivate() { _ = call(.deactivate) }

    func destroy() {
        if endReason == nil && !channelClosed && process.isRunning { _ = call(.destroy) }
        isDestroyed = true
        remains.endDescendants(of: process)
        stopWatching()
        remains.end()
    }

    func extensionPointer(_ id: String) -> UnsafeRawPointer? { nil }
    func onCallback() { _ = call(.onCallback) }

    var offersAudio: Bool { offers.audio }
    func start(item: String?) -> DeckStatus { status(of: .start(item: item)) }
    func stop() { _ = call(.stop) }
    var renderSource: RenderSource? { offers.audio ? renderer.source : nil }
    func closeStream(_ close: () -> Void) { renderer.drain(then: close) }

    var framesAhead: Double? {
        let taken = renderer.framesTaken.load(ordering: .relaxed)
        return taken == 0 ? nil : Double(renderer.framesQueued.load(ordering: .relaxed)) / Double(taken)
    }

    var lateFrames: Int? { renderer.lateFrames.load(ordering: .relaxed) }

    func focusChanged(_ change: FocusChange) { _ = call(.focusChanged(change)) }
    func sessionChanged(active: Bool) { _ = call(.sessionChanged(active: active)) }

    var offersNowPlaying: Bool { offers.nowPlaying }

    func command(_ command: RemoteCommand, token: UInt64) -> CommandResult? {
        guard var reply = call(.command(command, token: token)) else { return .commandFailed }
        let result: CommandResult? = read(&reply, or: .commandFailed)
        finish(reply, .command(command, token: token))
        return result
    }

    var offersUI: Bool { offers.ui }
    func displayChanged(attached: Bool, profile: String) { _ = call(.displayChanged(attached: attached, profile: profile)) }
    func select(templateID: UInt64, key: String, token: UInt64) { _ = call(.select(templateID: templateID, key: key, token: token)) }
    func limitsChanged(_ limits: String) { _ = call(.limitsChanged(limits)) }

    var offersContent: Bool { offers.content }

    func childCount(path: String) -> Int {
        guard var reply = call(.childCount(path: path)) else { return 0 }
        let count: Int = read(&reply, or: 0)
        finish(reply, .childCount(path: path))
        return count
    }

    func contentItem(path: String) -> Result<ContentItem, PluginCallError> {
        let gone = Result<ContentItem, PluginCallError>.failure(PluginCallError(status: .state, message: "item(\"\(path)\"): the plugin's process ended"))
        guard var reply = call(.contentItem(path: path)) else { return gone }
        let item = read(&reply, or: gone)
        finish(reply, .contentItem(path: path))
        return item
    }

    func beginLoading(path: String, token: UInt64) { _ = call(.beginLoading(path: path, token: token)) }
    func play(path: String, token: UInt64) { _ = call(.play(path: path, token: token)) }

    // The socket

    /// Sends `call` and returns its answer, or nil when the host is gone or was just ended.
    private func call(_ call: PluginCall) -> WireReader? {
        guard endReason == nil, !channelClosed, !isDestroyed else { return nil }
        guard let timeout = deadline.timeout(within: settings.callTimeoutMilliseconds) else {
            end(because: "was not asked to \(call.name): the shutdown's time for plugins had run out")
            return nil
        }
        var request = WireWriter(.call)
        request.write(call)
        do throws(WireError) {
            let reply = try channel.exchange(request, answer: .reply, timeoutMs: Int32(timeout)) {
                message throws(WireError) in try serve(&message, nested: true)
            }
            heard()
            return reply
        } catch .timedOut(let milliseconds) {
            end(because: "did not answer \(call.name) within \(milliseconds) ms")
        } catch .closed {
            channelClosed = true
            host.log(.error, text: "its process ended during \(call.name)")
        } catch {
            end(because: "broke the protocol during \(call.name): \(error)")
        }
        return nil
    }

    private func status(of call: PluginCall) -> DeckStatus {
        guard var reply = self.call(call) else { return .state }
        let status: DeckStatus = read(&reply, or: .state)
        finish(reply, call)
        return status
    }

    private func read<T: WireValue>(_ reply: inout WireReader, or fallback: T) -> T {
        do throws(WireError) { return try reply.read() } catch {
            end(because: "answered with a malformed message: \(error)")
            return fallback
        }
    }

    private func finish(_ reply: WireReader, _ call: PluginCall) {
        do throws(WireError) { try reply.finish() } catch { end(because: "answered \(call.name) with a malformed message: \(error)") }
    }

    /// Handles what the host sends besides answers: events, and host calls while a call of ours waits.
    private func serve(_ message: inout WireReader, nested: Bool) throws(WireError) {
        heard()
        switch message.kind {
        case .event:
            let now = MonotonicClock.milliseconds  // a flood is counted in real seconds, whatever the scheduler
            if now - secondStarted >= 1_000 {
                secondStarted = now
                eventsThisSecond = 0
            }
            eventsThisSecond += 1
            guard eventsThisSecond <= IsolatedPluginCode.maxEventsPerSecond else {
                throw .invalid("over \(IsolatedPluginCode.maxEventsPerSecond) messages in a second (a flood)")
            }
            let event: HostEvent = try message.read()
            try message.finish()
            switch event {
            case .log(let level, let text): host.log(level, text: text, forwarded: true)
            case .callback: host.requestCallback()
            case .heartbeat:
                watchSilence(for: UInt64(settings.heartbeatTimeoutMilliseconds))
                if !nested { checkLimits() }
            }
        case .hostCall where nested:
            let call: HostCall = try message.read()
            try message.finish()
            var reply = WireWriter(.hostReply)
            let actions = host.actions, instance = host.instance
            switch call {
            case .openStream: reply.write(actions.openStream(instance))
            case .closeStream: reply.write(actions.closeStream(instance))
            case .abandonFocus: reply.write(actions.abandonFocus(instance))
            case .requestFocus(let context, let type, let delayed, let pauses):
                reply.write(actions.requestFocus(instance, context, type, delayed, pauses))
            case .nowPlaying(let call): reply.write(actions.nowPlaying(instance, call))
            case .ui(let call): reply.write(actions.ui(instance, call))
            }
            try channel.send(reply, timeoutMs: Int32(settings.callTimeoutMilliseconds))
        default:
            throw .invalid("unexpected \(message.kind) message")
        }
    }

    /// Reads what arrived while no call waits: events only.
    private func readIncoming() {
        guard endReason == nil, !channelClosed else { return }
        do throws(WireError) {
            try channel.readAvailable()
            while var message = try channel.nextMessage() { try serve(&message, nested: false) }
        } catch .closed {
            channelClosed = true
            watcher?.close()
        } catch {
            end(because: "broke the protocol: \(error)")
        }
    }

    /// Reads the clock afresh: a message served during a long turn (plugins loading one after
    /// another, a call's nested host calls) is heard now, not at the turn's start.
    private func heard() {
        scheduler.updateTime()
        lastHeard = scheduler.now
    }

    /// Looks at the host's silence once `milliseconds` more pass; each heartbeat moves it on, so a
    /// healthy host never wakes the runtime for it.
    private func watchSilence(for milliseconds: UInt64) {
        health?.start(after: milliseconds + 1) { [unowned self] in checkQuiet() }
    }

    /// Ends a host whose loop went quiet; else looks again when it would have been quiet too long.
    private func checkQuiet() {
        readIncoming()
        guard endReason == nil, !channelClosed, !isDestroyed else { return }
        let quiet = scheduler.now - min(lastHeard, scheduler.now), timeout = UInt64(settings.heartbeatTimeoutMilliseconds)
        guard quiet <= timeout else {
            end(because: "missed its heartbeat (nothing for \(quiet) ms, over \(timeout) ms)")
            return
        }
        watchSilence(for: timeout - quiet)
    }

    /// At each heartbeat (every `heartbeatTimeoutMs`/4): ends a host whose render stopped
    /// delivering while it is pulled, or whose cgroup on the runtime's uid holds more than
    /// `processLimit` threads (on a uid of its own RLIMIT_NPROC holds it there; on the runtime's it
    /// would count deckd's too).
    private func checkLimits() {
        guard endReason == nil, !isDestroyed else { return }
        if remains.uid == 0, settings.processLimit > 0, let group = remains.cgroup?.path,
           let tasks = Cgroup.threadCount(group), tasks > settings.processLimit {
            end(because: "ran \(tasks) processes and threads, over isolation.processLimit (\(settings.processLimit))")
            return
        }
        let missed = renderer.missedFrames.load(ordering: .relaxed)
        defer { missedAtLastCheck = missed }
        if missed > missedAtLastCheck && missed * frameMilliseconds > settings.heartbeatTimeoutMilliseconds {
            end(because: "delivered no audio for \(missed * frameMilliseconds) ms while its stream was pulled")
        }
    }

    /// Kills a host the runtime stops trusting; its end is reported when the process is reaped.
    private func end(because reason: String) {
        guard endReason == nil, !isDestroyed else { return }
        endReason = reason
        remains.endDescendants(of: process)
        process.kill(SIGKILL)
    }

    private func ended(_ ending: ChildProcess.Ending) {
        stopWatching(keepProcess: true)
        remains.end()
        guard !isDestroyed else { return }
        let pid = process.pid
        onEnd(endReason.map { "its process \(pid) was killed: it \($0)" } ?? "its process \(pid) \(ending)")
    }

    private func stopWatching(keepProcess: Bool = false) {
        watcher?.close()
        watcher = nil
        health?.close()
        health = nil
        if !keepProcess {
            process.onExit = nil
            process.close()
            channel.close()
        }
    }
}
