import DeckBase
import DeckNowPlaying
import DeckPlugins
import DeckSession

/// Carries now playing out: decides who owns the center (the plugin holding music focus, or the
/// last one that did), takes the owner's `deck.now-playing` calls, routes remote commands to it
/// with a timeout, and remembers the last source to resume. Loop-thread-confined.
public final class PlayerCoordinator {
    /// How a remote command ended, for the caller (RPC, MPRIS); its description is for the log.
    public enum Outcome: Equatable, Sendable, CustomStringConvertible {
        case done(CommandResult, owner: String)
        /// Refused before reaching any plugin, with the reason.
        case notEnabled(String)
        case noPlayer(String)
        case failed(String)

        public var description: String {
            switch self {
            case .done(let result, let owner): "\(owner) answered \(result.name)"
            case .notEnabled(let reason), .noPlayer(let reason), .failed(let reason): reason
            }
        }
    }

    public let center: NowPlayingCenter
    /// What played last; resumed by `play` when nobody owns the center (after a restart too).
    public internal(set) var lastSource: LastSource?
    private let plugins: PluginDirectory
    /// Runs when the center changed (what changed); the runtime coalesces and publishes.
    var onChange: ((NowPlayingCenter.Change) -> Void)?
    /// Asked before the last source's app resumes from here: places it in this center's zone, or
    /// says why it cannot play there (it plays in another zone).
    var claim: (String) -> String? = { _ in nil }
    private let scheduler: any Scheduler
    private let logger: Logger
    private let timeoutTimer: any SchedulerTimer
    private var nextToken: UInt64 = 0
    /// The plugin whose music request waits for the focus (a call holds it): the driver's newest
    /// choice, so pause, stop and toggle go to it, to call its start off.
    private var waitingForFocus: String?
    private var pending: [UInt64: (owner: String, command: RemoteCommand, deadline: UInt64, reply: (Outcome) -> Void)] = [:]
    /// Per app, command and answer other than success: logged at most once per 10 s, so a client
    /// pressing next at a queue's end in a loop does not flood the journal (which then drops lines).
    private var refusalLogs: [String: LogThrottle] = [:]

    init(limits: NowPlayingLimits, plugins: PluginDirectory, scheduler: any Scheduler, logger: Logger) throws(LoopError) {
        center = NowPlayingCenter(limits: limits)
        self.plugins = plugins
        self.scheduler = scheduler
        self.logger = logger
        timeoutTimer = try scheduler.makeTimer()
    }

    func close() {
        timeoutTimer.close()
        for token in pending.keys.sorted() { finish(token, .failed("the runtime is shutting down")) }
    }

    // MARK: Ownership

    /// Hands the center to the plugin holding music focus, if one does; otherwise the last owner
    /// keeps it. `isHome` tells the plugins that play in this center's zone.
    func sessionChanged(_ arbiter: SessionArbiter, isHome: (String) -> Bool = { _ in true }) {
        waitingForFocus = arbiter.pending.flatMap { request in
            if case .plugin(let id) = request.owner, request.context == .music, isHome(id) { id } else { nil }
        }
        let holder = arbiter.holders.last { holder in
            if case .plugin(let id) = holder.request.owner { holder.request.context == .music && isHome(id) } else { false }
        }
        guard case .plugin(let id)? = holder?.request.owner, id != center.owner else { return }
        logger.info("nowplaying", "\(id) owns now playing" + (center.owner.map { " (was \($0))" } ?? ""))
        transfer(to: id)
    }

    /// The plugin goes away: the center is emptied; what it played stays the last source.
    func release(_ pluginID: String) {
        guard center.owner == pluginID else { return }
        transfer(to: nil)
    }

    /// Takes `other`'s owner and what it published: the owner's app moved to this zone. Commands
    /// waiting on it there fail; its last source is remembered here.
    func take(from other: PlayerCoordinator) {
        for (token, entry) in other.pending where entry.owner == other.center.owner {
            other.finish(token, .failed("\(entry.owner) moved to another zone"))
        }
        other.rememberSource()
        onChange?(center.take(from: other.center))
        other.onChange?(.owner)
        rememberSource()
    }

    private func transfer(to owner: String?) {
        rememberSource()
        for (token, entry) in pending where entry.owner == center.owner {
            finish(token, .failed("\(entry.owner) no longer owns now playing"))
        }
        onChange?(center.transfer(to: owner))
    }

    private func rememberSource() {
        if let source = center.lastSource(now: scheduler.now) { lastSource = source }
    }

    // MARK: The owner's calls

    func handle(_ call: NowPlayingCall, instance: Int) -> PluginCallError? {
        guard let plugin = plugins.plugin(instance: instance) else {
            return PluginCallError(status: .state, message: "the plugin is still loading (in init); call it once the plugin is active")
        }
        return handle(call, from: plugin.id)
    }

    func handle(_ call: NowPlayingCall, from pluginID: String) -> PluginCallError? {
        let change: NowPlayingCenter.Change
        do throws(NowPlayingError) {
            switch call {
            case .setInfo(var info, let artwork):
                info.setPosition(elapsed: info.elapsed, rate: info.rate, state: info.playbackState, now: scheduler.now)
                change = try center.setInfo(info, artworkBytes: artwork, from: pluginID)
            case .setPosition(let elapsed, let rate, let state):
                change = try center.setPosition(elapsed: elapsed, rate: rate, state: state, from: pluginID, now: scheduler.now)
            case .clear: change = try center.clear(from: pluginID)
            case .setQueue(let items, let current): change = try center.setQueue(items, current: current, from: pluginID)
            case .setQueueIndex(let index): change = try center.selectQueueItem(index, from: pluginID)
            case .setModes(let shuffle, let repeatMode): change = try center.setModes(shuffle: shuffle, repeatMode: repeatMode, from: pluginID)
            case .setCommands(let enabled, let forward, let backward):
                change = try center.setCommands(enabled, skipForward: forward, skipBackward: backward, from: pluginID)
            case .complete(let token, let result):
                guard let entry = pending[token], entry.owner == pluginID else {
                    return PluginCallError(status: .state, message: "token \(token) is not awaiting an answer (answered, timed out, or not yours)")
                }
                finish(token, .done(result, owner: entry.owner))
                return nil
            }
        } catch {
            let status: DeckStatus = switch error {
            case .notOwner: .notOwner
            case .invalid: .invalid
            case .limit: .limit
            }
            return PluginCallError(status: status, message: error.description)
        }
        if !change.isEmpty {
            rememberSource()
            onChange?(change)
        }
        return nil
    }

    // MARK: Remote commands

    /// Routes `command` to the owner if it enabled it (toggle and skip fall back on play/pause and
    /// seek); `reply` runs once, now or when the owner answers or times out. With no owner, `play`
    /// resumes the last source. Pause, stop and toggle (as pause) go to another app whose start
    /// waits for the focus, though it enabled nothing yet, so the driver can call that start off.
    public func send(_ command: RemoteCommand, reply: @escaping (Outcome) -> Void) {
        if let waiting = waitingForFocus, waiting != center.owner, [.pause, .stop, .togglePlayPause].contains(command.kind),
           let plugin = plugins.plugin(id: waiting) {
            return deliver(command == .stop ? .stop : .pause, to: waiting, plugin, reply: reply)
        }
        guard let owner = center.owner, let plugin = plugins.plugin(id: owner) else {
            if command == .play || command == .togglePlayPause, let source = lastSource {
                return reply(resume(source))
            }
            return reply(.noPlayer("nothing owns now playing" + (lastSource == nil ? " and nothing played before" : "")))
        }
        guard let routed = route(command) else {
            let enabled = RemoteCommand.Kind.allCases.filter(center.commands.contains).map(\.name)
            return reply(.notEnabled("\(owner) does not carry out \(command.kind.name) (it enabled: "
                                   + (enabled.isEmpty ? "none" : enabled.joined(separator: ", ")) + ")"))
        }
        deliver(routed, to: owner, plugin, reply: reply)
    }

    /// Hands `command` to `plugin` with a token; `reply` runs when it answers or times out.
    private func deliver(_ command: RemoteCommand, to owner: String, _ plugin: PluginInstance, reply: @escaping (Outcome) -> Void) {
        nextToken += 1
        let token = nextToken
        pending[token] = (owner, command, scheduler.now + UInt64(center.limits.commandTimeoutMilliseconds), reply)
        logger.debug("nowplaying", "\(command.kind.name) → \(owner) (token \(token))")
        if let result = plugin.command(command, token: token) {
            finish(token, .done(result, owner: owner))
        } else {
            armTimeout()
        }
    }

    /// The command the owner receives for `command`, or nil when it enabled neither it nor a fallback.
    private func route(_ command: RemoteCommand) -> RemoteCommand? {
        let enabled = center.commands
        if enabled.contains(command.kind) { return command }
        switch command {
        case .togglePlayPause:
            let playing = center.info.playbackState == .playing
            if playing && enabled.contains(.pause) { return .pause }
            if !playing && enabled.contains(.play) { return .play }
        case .skip(let seconds) where enabled.contains(.seek):
            var target = center.info.elapsed(at: scheduler.now) + seconds
            if let duration = center.info.duration { target = min(target, duration) }
            return .seek(MediaTime(clamping: max(0, target)).seconds)
        default: break
        }
        return nil
    }

    /// Starts the last source again: its app plays the item it played, then seeks to where it was.
    private func resume(_ source: LastSource) -> Outcome {
        guard let plugin = plugins.plugin(id: source.pluginID), plugin.state == .active else {
            return .noPlayer("\(source.pluginID), which played last, is not loaded and active")
        }
        if let refusal = claim(source.pluginID) { return .failed(refusal) }
        logger.info("nowplaying", "resuming \(source.pluginID) \(source.itemKey ?? "(default item)") at \(MediaTime(clamping: source.position).wholeSeconds) s")
        do throws(PluginCallError) {
            try plugin.startPlayback(item: source.itemKey)
        } catch {
            return .failed(error.message)
        }
        if source.position >= 1, center.owner == source.pluginID, center.commands.contains(.seek) {
            send(.seek(source.position)) { _ in }
        }
        return .done(.success, owner: source.pluginID)
    }

    private func finish(_ token: UInt64, _ outcome: Outcome) {
        guard let entry = pending.removeValue(forKey: token) else { return }
        if case .done(let result, let owner) = outcome, result != .success {
            let said = "\(owner) answered \(entry.command.kind.name): \(result.name)"
            let (log, held) = refusalLogs[said, default: LogThrottle()].admit(now: scheduler.now)
            if log { logger.info("nowplaying", said + LogThrottle.suffix(held)) }
        }
        entry.reply(outcome)
        armTimeout()
    }

    /// Arms the timer for the earliest deadline; answers what is past it commandFailed.
    private func armTimeout() {
        guard let next = pending.values.map(\.deadline).min() else { return timeoutTimer.stop() }
        timeoutTimer.start(after: next > scheduler.now ? next - scheduler.now : 0) { [unowned self] in
            for (token, entry) in pending where entry.deadline <= scheduler.now {
                logger.warning("nowplaying", "\(entry.owner) did not answer \(entry.command.kind.name) within "
                               + "\(center.limits.commandTimeoutMilliseconds) ms; answered commandFailed")
                finish(token, .done(.commandFailed, owner: entry.owner))
            }
            armTimeout()
        }
    }
}
