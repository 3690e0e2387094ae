import DeckMedia
import DeckNowPlaying
import DeckSession
import DeckUI

/// Every call the runtime makes into a plugin's code, and nothing else: the one interface a
/// plugin in this process (`InProcessPluginCode`) implements, and that a plugin running in a
/// separate host process would implement over its socket. `PluginInstance` checks the lifecycle
/// before a call gets here, so none arrives in the wrong state. Loop-thread-confined.
package protocol PluginCode: AnyObject {
    /// Whether the code is a Swift image (never unloaded from this process).
    var isSwift: Bool { get }
    /// The host process the code runs in; nil when it runs in this one.
    var processID: Int32? { get }
    func initialize() -> DeckStatus
    func activate() -> DeckStatus
    func deactivate()
    /// Destroys the instance, lets the entry deinit and forgets the library. No call follows.
    func destroy()
    /// A plugin extension by id (in process only; extensions the runtime knows have calls below).
    func extensionPointer(_ id: String) -> UnsafeRawPointer?
    /// Answers a `request_callback`.
    func onCallback()
    /// Ends the code's process for `reason` (its end is then reported as a crash, and a restart
    /// may follow); false for code in this process, which cannot be ended.
    func terminate(because reason: String) -> Bool

    // deck.audio
    /// Whether the plugin offers a complete `deck.audio` (start, stop and render).
    var offersAudio: Bool { get }
    func start(item: String?) -> DeckStatus
    func stop()
    /// What the audio thread calls for the plugin's stream.
    var renderSource: RenderSource? { get }
    /// Closes the plugin's open stream with the output's `close`: in freewheel the frames a host
    /// process rendered ahead of the mix are played first (the mix takes them in moments), not dropped.
    func closeStream(_ close: () -> Void)
    /// Frames rendered ahead of the mix, on average (the latency a host process adds); nil inline.
    var framesAhead: Double? { get }
    /// Frames its host process did not deliver by the deadline (counted as underruns too); nil inline.
    var lateFrames: Int? { get }

    // deck.session
    func focusChanged(_ change: FocusChange)
    func sessionChanged(active: Bool)

    // deck.now-playing
    /// Whether the plugin offers `deck.now-playing` (it can be sent remote commands).
    var offersNowPlaying: Bool { get }
    /// Sends a remote command; the answer, or nil when the plugin will complete `token` later.
    func command(_ command: RemoteCommand, token: UInt64) -> CommandResult?

    // deck.ui
    /// Whether the plugin offers `deck.ui` (it describes templates).
    var offersUI: Bool { get }
    func displayChanged(attached: Bool, profile: String)
    func select(templateID: UInt64, key: String, token: UInt64)
    func limitsChanged(_ limits: String)

    // deck.content
    /// Whether the plugin offers `deck.content` (a browse tree).
    var offersContent: Bool { get }
    /// Children of the node at `path`; negative when they are not loaded yet.
    func childCount(path: String) -> Int
    /// The node at `path`, copied, or why it could not be read.
    func contentItem(path: String) -> Result<ContentItem, PluginCallError>
    func beginLoading(path: String, token: UInt64)
    func play(path: String, token: UInt64)
}
