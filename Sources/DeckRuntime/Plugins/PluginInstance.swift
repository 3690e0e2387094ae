import CDeckPlugin

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
    public var isSwift: Bool { library.isSwift }

    /// created → initialized.
    public func initialize() throws(PluginCallError) {
        try expect(.created, for: "init")
        let status = DeckStatus(code: plugin.pointee.`init`(plugin))
        guard status == .ok else { throw PluginCallError(status: status, message: host.lastLoggedError) }
        state = .initialized
        host.phase.store(PluginHost.Phase.running.rawValue, ordering: .releasing)
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

    /// The plugin's extension with this id, or nil. Refused once destroyed.
    public func extensionPointer(_ id: String) throws(PluginCallError) -> UnsafeRawPointer? {
        guard state != .destroyed else { throw refusal(for: "get_extension", expected: "not destroyed") }
        return plugin.pointee.get_extension?(plugin, id)
    }

    /// Delivers a `request_callback` on the loop thread; dropped once destroyed.
    func deliverCallback() {
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
