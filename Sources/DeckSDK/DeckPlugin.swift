/// A Deck plugin written in Swift: a class conforming to this protocol plus one exported entry
/// function (see `DeckPluginExport`). Every requirement runs on the runtime's loop thread.
public protocol DeckPlugin: AnyObject {
    /// Facts about the plugin; `id` must equal the bundle manifest's id.
    static var descriptor: PluginDescriptor { get }

    /// The host's `init`: prepare the instance. Throwing refuses the load; the error is logged.
    init(host: DeckHost) throws

    /// The plugin starts running and may use its entitlements.
    func activate() throws

    /// The plugin stops running.
    func deactivate()

    /// Answers `host.requestCallback()`, on the loop thread.
    func onCallback()

    /// The plugin's audio focus changed (see `DeckHost.requestFocus`). Loop thread.
    func focusChanged(_ change: FocusChange)

    /// The output was activated or deactivated. Loop thread.
    func sessionChanged(active: Bool)
}

extension DeckPlugin {
    public func activate() throws {}
    public func deactivate() {}
    public func onCallback() {}
    public func focusChanged(_ change: FocusChange) {}
    public func sessionChanged(active: Bool) {}
}

/// The static facts a plugin reports about itself.
public struct PluginDescriptor: Sendable {
    public var id: String
    public var name: String
    public var version: String
    public var vendor: String?
    public var description: String?

    public init(id: String, name: String, version: String, vendor: String? = nil, description: String? = nil) {
        self.id = id
        self.name = name
        self.version = version
        self.vendor = vendor
        self.description = description
    }
}

/// A plugin that plays audio (`deck.audio`): the host asks it to start an item, then pulls
/// `render` on the audio thread while its stream is open.
public protocol DeckAudioPlugin: DeckPlugin {
    /// Start playing `item` (nil: the default), then call `host.openStream()`. Throw
    /// `DeckError(.invalid, …)` for an unknown item. Loop thread.
    func start(item: String?) throws

    /// Stop playing and call `host.closeStream()`. Loop thread.
    func stop()

    /// Write up to `frames` frames of 48 kHz interleaved stereo into `samples`; return how many.
    /// Audio thread: must not block, lock, allocate or do I/O.
    func render(frames: Int, into samples: UnsafeMutablePointer<Float>) -> Int
}
