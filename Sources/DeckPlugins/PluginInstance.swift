import CDeckPlugin
import DeckAudio
import DeckSession

/// One loaded plugin: its manifest, library, C instance and lifecycle. The lifecycle is checked
/// here, so a call in the wrong state never reaches the plugin. Loop-thread-confined.
public final class PluginInstance {
    public enum State: String, Sendable {
        case created, initialized, active, destroyed
    }

    public let manifest: PluginManifest
    public let bundlePath: String
    /// Declared ∩ granted by the integrator's policy.
    public let entitlements: Set<Entitlement>
    public private(set) var state: State = .created
    let host: PluginHost
    private let library: PluginLibrary
    private let entry: UnsafePointer<deck_plugin_entry_t>
    private let plugin: UnsafePointer<deck_plugin_t>
    /// The plugin's deck.audio extension, when it offers a complete one.
    public private(set) var audio: UnsafePointer<deck_plugin_audio_t>?
    /// The plugin's deck.session extension, to tell it about focus and the output.
    private var session: UnsafePointer<deck_plugin_session_t>?
    /// Underruns and invalid frames of the plugin's streams, over its lifetime.
    public let streamCounters = StreamCounters()

    init(manifest: PluginManifest, bundlePath: String, host: PluginHost, library: PluginLibrary,
         entry: UnsafePointer<deck_plugin_entry_t>, plugin: UnsafePointer<deck_plugin_t>) {
        self.manifest = manifest
        self.bundlePath = bundlePath
        self.entitlements = host.entitlements
        self.host = host
        self.library = library
        self.entry = entry
        self.plugin = plugin
    }

    public var id: String { manifest.id }
    /// The number the host calls of this instance carry.
    package var instance: Int { host.instance }
    public var isSwift: Bool { library.isSwift }

    /// created → initialized.
    public func initialize() throws(PluginCallError) {
        try expect(.created, for: "init")
        let status = DeckStatus(code: plugin.pointee.`init`(plugin))
        guard status == .ok else { throw PluginCallError(status: status, message: host.lastLoggedError) }
        state = .initialized
        host.phase.store(PluginHost.Phase.running.rawValue, ordering: .releasing)
        if let pointer = plugin.pointee.get_extension?(plugin, DECK_EXT_AUDIO) {
            let audio = pointer.assumingMemoryBound(to: deck_plugin_audio_t.self)
            if audio.pointee.start != nil && audio.pointee.stop != nil && audio.pointee.render != nil {
                self.audio = audio
            } else {
                host.logger.warning("plugins", "\(id): ignoring its deck.audio extension: start, stop or render is NULL")
            }
        }
        session = plugin.pointee.get_extension?(plugin, DECK_EXT_SESSION)?.assumingMemoryBound(to: deck_plugin_session_t.self)
    }

    /// initialized → active.
    public func activate() throws(PluginCallError) {
        try expect(.initialized, for: "activate")
        let status = DeckStatus(code: plugin.pointee.activate(plugin))
        guard status == .ok else {
            let reason = host.lastLoggedError
            throw PluginCallError(status: status, message: "\(id) refused to activate" + (reason.isEmpty ? "" : ": \(reason)"))
        }
        state = .active
    }

    /// active → initialized.
    public func deactivate() throws(PluginCallError) {
        try expect(.active, for: "deactivate")
        plugin.pointee.deactivate(plugin)
        state = .initialized
    }

    /// Deactivates if needed, destroys the instance and forgets the library. Idempotent.
    public func destroy() {
        guard state != .destroyed else { return }
        if state == .active { try? deactivate() }
        host.phase.store(PluginHost.Phase.destroyed.rawValue, ordering: .releasing)
        plugin.pointee.destroy(plugin)
        entry.pointee.deinit?()
        state = .destroyed
        library.close()
    }

    /// Asks the plugin to start playing `item` (nil: its default); it opens its stream when ready.
    public func startPlayback(item: String?) throws(PluginCallError) {
        try expect(.active, for: "play")
        guard let audio else { throw PluginCallError(status: .unsupported, message: "\(id) does not offer deck.audio") }
        let status = DeckStatus(code: item.map { audio.pointee.start(plugin, $0) } ?? audio.pointee.start(plugin, nil))
        guard status == .ok else {
            let reason = host.lastLoggedError
            throw PluginCallError(status: status, message: "\(id) refused to play \(item ?? "its default item")"
                                  + (reason.isEmpty ? "" : ": \(reason)"))
        }
    }

    /// Asks the plugin to stop playing.
    public func stopPlayback() {
        guard state == .active, let audio else { return }
        audio.pointee.stop(plugin)
    }

    /// Tells the plugin its focus changed (nothing reaches a destroyed plugin).
    package func notifyFocus(_ change: FocusChange) {
        guard state == .initialized || state == .active, let callback = session?.pointee.focus_changed else { return }
        let (code, resume): (deck_focus_change_t, Bool) = switch change {
        case .gain(let shouldResume): (DECK_FOCUS_CHANGE_GAIN, shouldResume)
        case .unduck: (DECK_FOCUS_CHANGE_UNDUCK, false)
        case .loss: (DECK_FOCUS_CHANGE_LOSS, false)
        case .lossTransient: (DECK_FOCUS_CHANGE_LOSS_TRANSIENT, false)
        case .duck: (DECK_FOCUS_CHANGE_DUCK, false)
        }
        callback(plugin, code.rawValue, resume)
    }

    /// Tells the plugin the output was activated or deactivated.
    package func notifySession(active: Bool) {
        guard state == .initialized || state == .active, let callback = session?.pointee.session_changed else { return }
        callback(plugin, active)
    }

    /// What the audio thread calls for this plugin's stream.
    package var renderSource: RenderSource? {
        guard let render = audio?.pointee.render else { return nil }
        return RenderSource(plugin: plugin, render: render)
    }

    /// The plugin's extension with this id, or nil. Refused once destroyed.
    public func extensionPointer(_ id: String) throws(PluginCallError) -> UnsafeRawPointer? {
        guard state != .destroyed else { throw refusal(for: "get_extension", expected: "not destroyed") }
        return plugin.pointee.get_extension?(plugin, id)
    }

    /// Delivers a `request_callback` on the loop thread; dropped once destroyed.
    package func deliverCallback() {
        host.callbackPending.store(false, ordering: .releasing)
        guard state == .initialized || state == .active else { return }
        plugin.pointee.on_callback?(plugin)
    }

    private func expect(_ required: State, for call: String) throws(PluginCallError) {
        guard state == required else { throw refusal(for: call, expected: required.rawValue) }
    }

    private func refusal(for call: String, expected: String) -> PluginCallError {
        PluginCallError(status: .state, message: "cannot \(call) \(id): it is \(state.rawValue), expected \(expected)")
    }
}
