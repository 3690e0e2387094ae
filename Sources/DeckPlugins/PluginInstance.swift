import DeckBase
import DeckMedia
import DeckNowPlaying
import DeckSession
import DeckUI
import Glibc

/// One loaded plugin: its manifest, its host and its code, and its lifecycle. The lifecycle is
/// checked here, so a call in the wrong state never reaches the plugin's code. Loop-thread-confined.
public final class PluginInstance {
    public enum State: String, Sendable, CaseIterable {
        case created, initialized, active, destroyed
        /// Its code stopped returning (a render that hangs): never called again, never unloaded.
        case hung
        /// Its host process ended (a crash, or killed for hanging); a restart may follow.
        case crashed
        /// Crashed too often: stays down until a client loads or launches it again.
        case disabled
    }

    public let manifest: PluginManifest
    public let bundlePath: String
    /// The bundle's manifest and library as they were when it loaded.
    public let fingerprint: BundleFingerprint
    /// Declared ∩ granted by the integrator's policy.
    public let entitlements: Set<Entitlement>
    /// What its sandbox lets it reach: declared ∩ granted.
    public var permissions: Set<Permission> { host.permissions }
    /// The folder it may write; nil when the runtime keeps none.
    public var dataFolder: String? { host.dataFolder }
    public private(set) var state: State = .created
    let host: PluginHost
    private let code: any PluginCode
    /// Underruns and invalid frames of the plugin's streams, over its lifetime.
    public let streamCounters: StreamCounters
    /// Set by the registry: runs after each activation.
    var didActivate: ((PluginInstance) -> Void)?
    /// Set by the registry: where calls into the plugin's code are announced while they run.
    var callWatch: LoopCallWatch?
    /// Loop time its calls took lately, against its budget (set by the registry).
    package var loopTime = LoopTimeLedger(windowMilliseconds: LoopBudget().windowMilliseconds)
    /// When it went over its budget, each time (monotonic ms), and whether it is over it now.
    package var overspends: [Int] = []
    package var isOverspent = false

    init(manifest: PluginManifest, bundlePath: String, host: PluginHost, code: any PluginCode) {
        self.manifest = manifest
        self.bundlePath = bundlePath
        fingerprint = BundleFingerprint(bundle: bundlePath, library: manifest.library)
        self.entitlements = host.entitlements
        self.host = host
        self.code = code
        streamCounters = StreamCounters(timesRender: code.processID == nil)
    }

    public var id: String { manifest.id }
    public var isSwift: Bool { code.isSwift }
    /// The host process the plugin runs in; nil when it runs inline, in the runtime's process.
    public var processID: Int32? { code.processID }
    /// The number the host calls of this instance carry.
    package var instance: Int { host.instance }

    /// created → initialized.
    public func initialize() throws(PluginCallError) {
        try expect(.created, for: "init")
        let status = timed("init") { code.initialize() }
        guard status == .ok else { throw PluginCallError(status: status, message: host.lastLoggedError) }
        state = .initialized
        host.phase.store(PluginHost.Phase.running.rawValue, ordering: .releasing)
    }

    /// initialized → active.
    public func activate() throws(PluginCallError) {
        try expect(.initialized, for: "activate")
        let status = timed("activate") { code.activate() }
        guard status == .ok else {
            let reason = host.lastLoggedError
            throw PluginCallError(status: status, message: "\(id) refused to activate" + (reason.isEmpty ? "" : ": \(reason)"))
        }
        state = .active
        didActivate?(self)
    }

    /// active → initialized.
    public func deactivate() throws(PluginCallError) {
        try expect(.active, for: "deactivate")
        timed("deactivate") { code.deactivate() }
        state = .initialized
    }

    /// Marks the plugin hung: no call reaches its code again, and its library stays loaded at
    /// destroy, since a thread may still be inside it.
    public func markHung() {
        guard state != .destroyed else { return }
        state = .hung
    }

    /// Marks a plugin whose host process ended: its code is never called again.
    public func markCrashed(disabled: Bool) {
        guard state != .destroyed else { return }
        state = disabled ? .disabled : .crashed
    }

    /// Ends its host process for `reason`; false when it runs inline (it cannot be ended).
    package func terminate(because reason: String) -> Bool { code.terminate(because: reason) }

    /// Whether its host process ended (crashed or disabled).
    public var hasCrashed: Bool { state == .crashed || state == .disabled }

    /// Deactivates if needed, destroys the instance and forgets the library. Idempotent. A hung
    /// plugin is only forgotten; a crashed one only has its process's remains cleaned up.
    public func destroy() {
        guard state != .destroyed else { return }
        if hasCrashed {
            host.phase.store(PluginHost.Phase.destroyed.rawValue, ordering: .releasing)
            code.destroy()
            state = .destroyed
            return
        }
        if state == .hung {
            host.phase.store(PluginHost.Phase.destroyed.rawValue, ordering: .releasing)
            state = .destroyed
            return
        }
        if state == .active { try? deactivate() }
        host.phase.store(PluginHost.Phase.destroyed.rawValue, ordering: .releasing)
        timed("destroy") { code.destroy() }
        state = .destroyed
    }

    /// Asks the plugin to start playing `item` (nil: its default); it opens its stream when ready.
    public func startPlayback(item: String?) throws(PluginCallError) {
        try expect(.active, for: "play")
        guard code.offersAudio else { throw PluginCallError(status: .unsupported, message: "\(id) does not offer deck.audio") }
        let status = timed("start") { code.start(item: item) }
        guard status == .ok else {
            let reason = host.lastLoggedError
            // Quoted where a space at an end, or all spaces, would not show.
            let named = item.map { item in
                let shown = PrintableText.excerpt(item)
                return item.isEmpty ? "the empty item \"\"" : shown.first!.isWhitespace || shown.last!.isWhitespace ? "\"\(shown)\"" : shown
            } ?? "its default item"
            throw PluginCallError(status: status, message: "\(id) refused to play \(named)" + (reason.isEmpty ? "" : ": \(reason)"))
        }
    }

    /// Asks the plugin to stop playing.
    public func stopPlayback() {
        guard state == .active else { return }
        timed("stop") { code.stop() }
    }

    /// Tells the plugin its focus changed (nothing reaches a destroyed plugin).
    package func notifyFocus(_ change: FocusChange) {
        guard state == .initialized || state == .active else { return }
        timed("focus_changed") { code.focusChanged(change) }
    }

    /// Tells the plugin the output was activated or deactivated.
    package func notifySession(active: Bool) {
        guard state == .initialized || state == .active else { return }
        timed("session_changed") { code.sessionChanged(active: active) }
    }

    public var offersNowPlaying: Bool { code.offersNowPlaying }
    public var offersAudio: Bool { code.offersAudio }
    /// The extensions it offers, named as in apps.list: audio, now-playing, ui, content.
    public var offeredExtensions: [String] {
        [("audio", offersAudio), ("now-playing", offersNowPlaying), ("ui", offersUI), ("content", offersContent)].filter(\.1).map(\.0)
    }

    /// Sends a remote command to an active plugin; nil when it will answer `token` later.
    package func command(_ command: RemoteCommand, token: UInt64) -> CommandResult? {
        guard state == .active, code.offersNowPlaying else { return .commandFailed }
        return timed("command") { code.command(command, token: token) }
    }

    public var offersUI: Bool { code.offersUI }
    public var offersContent: Bool { code.offersContent }

    /// Tells an active plugin the display attached or went away.
    package func notifyDisplay(attached: Bool, profile: String) {
        guard state == .active, code.offersUI else { return }
        timed("display_changed") { code.displayChanged(attached: attached, profile: profile) }
    }

    /// Hands a selection to an active plugin; false when it cannot take one.
    package func select(templateID: UInt64, key: String, token: UInt64) -> Bool {
        guard state == .active, code.offersUI else { return false }
        timed("select") { code.select(templateID: templateID, key: key, token: token) }
        return true
    }

    package func notifyLimits(_ limits: String) {
        guard state == .active, code.offersUI else { return }
        timed("limits_changed") { code.limitsChanged(limits) }
    }

    /// The content tree's calls; an inactive plugin has no children and reads nothing.
    package func childCount(path: String) -> Int { state == .active && code.offersContent ? timed("child_count") { code.childCount(path: path) } : 0 }

    package func contentItem(path: String) -> Result<ContentItem, PluginCallError> {
        guard state == .active, code.offersContent else { return .failure(refusal(for: "item", expected: "active")) }
        return timed("item") { code.contentItem(path: path) }
    }

    package func beginLoading(path: String, token: UInt64) -> Bool {
        guard state == .active, code.offersContent else { return false }
        timed("begin_loading") { code.beginLoading(path: path, token: token) }
        return true
    }

    package func play(path: String, token: UInt64) -> Bool {
        guard state == .active, code.offersContent else { return false }
        timed("play") { code.play(path: path, token: token) }
        return true
    }

    /// What the audio thread calls for this plugin's stream.
    package var renderSource: RenderSource? { code.renderSource }

    /// Closes its open stream with the output's `close`, what it rendered ahead played first where
    /// that costs no real time (an isolated plugin in freewheel).
    package func closeStream(_ close: () -> Void) { code.closeStream(close) }

    /// Frames its host process renders ahead of the mix, on average; nil inline or before any.
    public var framesAhead: Double? { code.framesAhead }

    /// Of its underruns, the frames its host process delivered too late (a busy machine, or a slow
    /// render) rather than short; nil inline.
    public var lateFrames: Int? { code.lateFrames }

    /// The plugin's extension with this id, or nil. Refused once destroyed.
    public func extensionPointer(_ id: String) throws(PluginCallError) -> UnsafeRawPointer? {
        guard state != .destroyed else { throw refusal(for: "get_extension", expected: "not destroyed") }
        return code.extensionPointer(id)
    }

    /// Delivers a `request_callback` on the loop thread; dropped once destroyed.
    package func deliverCallback() {
        host.callbackPending.store(false, ordering: .releasing)
        guard state == .initialized || state == .active else { return }
        timed("on_callback") { code.onCallback() }
    }

    /// Loop-thread calls longer than this are logged: every app and client waited for them.
    package static let slowCallMilliseconds = 100

    /// Runs a call into the plugin's code on the loop thread and names it when it was slow.
    private func timed<T>(_ call: String, _ body: () -> T) -> T {
        let startMicroseconds = MonotonicClock.microseconds
        let start = startMicroseconds / 1_000
        callWatch?.enter(id, call, at: start)
        let result = body()
        callWatch?.leave()
        let endMicroseconds = MonotonicClock.microseconds
        loopTime.add(endMicroseconds - startMicroseconds, at: endMicroseconds / 1_000)
        let spent = (endMicroseconds - startMicroseconds) / 1_000
        if spent > PluginInstance.slowCallMilliseconds {
            host.logger.warning("plugins", plugin: id, "\(id): \(call) took \(spent) ms on the loop thread (over \(PluginInstance.slowCallMilliseconds) ms); "
                                + "every app and client waited for it")
        }
        return result
    }

    private func expect(_ required: State, for call: String) throws(PluginCallError) {
        guard state == required else { throw refusal(for: call, expected: required.rawValue) }
    }

    private func refusal(for call: String, expected: String) -> PluginCallError {
        PluginCallError(status: .state, message: "cannot \(call) \(id): it is \(state.rawValue), expected \(expected)")
    }
}
