import CDeckPlugin

/// The runtime as a plugin sees it: logging, callbacks, entitlements, thread checks.
/// Valid from the plugin's `init(host:)` until it is destroyed.
public struct DeckHost: @unchecked Sendable {  // Wraps the host's pointer; the host makes its calls thread-safe per plugin.h.
    public enum LogLevel: UInt32, Sendable {
        case error = 0, warning, info, debug
    }

    let raw: UnsafePointer<deck_host_t>

    init(raw: UnsafePointer<deck_host_t>) { self.raw = raw }

    public var name: String { raw.pointee.name.map { String(cString: $0) } ?? "" }
    public var version: String { raw.pointee.version.map { String(cString: $0) } ?? "" }

    /// Writes a line to the runtime's log, attributed to this plugin. [any-thread]
    public func log(_ level: LogLevel, _ message: String) {
        raw.pointee.log(raw, deck_log_level_t(rawValue: level.rawValue), message)
    }

    /// Asks for `onCallback()` soon on the loop thread; requests coalesce. [any-thread]
    public func requestCallback() throws(DeckError) {
        try check(raw.pointee.request_callback(raw))
    }

    /// Whether the plugin's effective entitlements include `category` ("audio", "maps", …). [any-thread]
    public func hasEntitlement(_ category: String) -> Bool {
        raw.pointee.has_entitlement(raw, category)
    }

    /// Whether the plugin holds sandbox permission `name` ("network", "media", "services"): declared in its
    /// manifest and granted by the integrator. False on runtimes before ABI 1.3. [any-thread]
    public func hasPermission(_ name: String) -> Bool {
        guard raw.pointee.abi.minor >= 3, let call = raw.pointee.has_permission else { return false }
        return call(raw, name)
    }

    /// The integrator's settings for this plugin as JSON object text ("{}" when none, or before
    /// ABI 1.4); `mediaFolders` lists the folders it may read when it holds `media`. [any-thread]
    public var settings: String {
        guard raw.pointee.abi.minor >= 4, let call = raw.pointee.settings, let text = call(raw) else { return "{}" }
        return String(cString: text)
    }

    /// The folder the plugin may write, kept across restarts; nil when the integrator keeps none
    /// (or before ABI 1.3). [any-thread]
    public var dataPath: String? {
        guard raw.pointee.abi.minor >= 3, let call = raw.pointee.data_path, let path = call(raw) else { return nil }
        return String(cString: path)
    }

    /// Whether the caller runs on the runtime's loop thread (false when the host cannot tell). [any-thread]
    public var isLoopThread: Bool {
        guard let check = threadCheck else { return false }
        return check.pointee.is_loop_thread(raw)
    }

    /// Whether the caller runs on the runtime's audio thread. [any-thread]
    public var isAudioThread: Bool {
        guard let check = threadCheck else { return false }
        return check.pointee.is_audio_thread(raw)
    }

    /// Starts the host pulling `render` on the audio thread; needs the audio entitlement. Loop thread.
    public func openStream() throws(DeckError) {
        guard let audio else { throw DeckError(.unsupported, "the host does not offer deck.audio") }
        try check(audio.pointee.open_stream(raw))
    }

    /// Stops the host pulling `render`; when this returns, `render` is not running. Loop thread.
    public func closeStream() throws(DeckError) {
        guard let audio else { throw DeckError(.unsupported, "the host does not offer deck.audio") }
        try check(audio.pointee.close_stream(raw))
    }

    /// Whether the host renders as fast as it can rather than in real time (a render to a file):
    /// `render` may then wait up to 40 ms for audio still being produced. False before ABI 1.5. [any-thread]
    public var isFreewheeling: Bool {
        guard raw.pointee.abi.minor >= 5, let call = audio?.pointee.is_freewheeling else { return false }
        return call(raw)
    }

    /// Requests audio focus for `context` ("music", "navigation", …); a second request replaces the
    /// first. Throws for a context the plugin is not entitled to. Loop thread.
    public func requestFocus(context: String, type: FocusType = .gain, acceptsDelayed: Bool = false,
                             pausesOnDuck: Bool = false) throws(DeckError) -> FocusResult {
        guard let session else { throw DeckError(.unsupported, "the host does not offer deck.session") }
        var flags: UInt32 = 0
        if acceptsDelayed { flags |= DECK_FOCUS_FLAG_ACCEPTS_DELAYED }
        if pausesOnDuck { flags |= DECK_FOCUS_FLAG_PAUSES_ON_DUCK }
        var result: Int32 = 0
        let status = context.withCString { name in
            var request = deck_focus_request_t(context: name, type: type.code, flags: flags, reserved: (nil, nil))
            return session.pointee.request_focus(raw, &request, &result)
        }
        try check(status)
        return FocusResult(code: result, reason: raw.pointee.last_error(raw).map { String(cString: $0) } ?? "")
    }

    /// Gives audio focus up. Loop thread.
    public func abandonFocus() throws(DeckError) {
        guard let session else { throw DeckError(.unsupported, "the host does not offer deck.session") }
        try check(session.pointee.abandon_focus(raw))
    }

    /// A host extension by id, or nil when the host does not offer it. [any-thread]
    public func extensionPointer(_ id: String) -> UnsafeRawPointer? {
        raw.pointee.get_extension(raw, id)
    }

    private var session: UnsafePointer<deck_host_session_t>? {
        extensionPointer(DECK_EXT_SESSION)?.assumingMemoryBound(to: deck_host_session_t.self)
    }

    private var audio: UnsafePointer<deck_host_audio_t>? {
        extensionPointer(DECK_EXT_AUDIO)?.assumingMemoryBound(to: deck_host_audio_t.self)
    }

    private var threadCheck: UnsafePointer<deck_host_thread_check_t>? {
        extensionPointer(DECK_EXT_THREAD_CHECK)?.assumingMemoryBound(to: deck_host_thread_check_t.self)
    }

    func check(_ status: deck_status_t) throws(DeckError) {
        guard status != deck_status_t(DECK_OK) else { return }
        let message = raw.pointee.last_error(raw).map { String(cString: $0) } ?? ""
        throw DeckError(status: status, message: message)
    }
}
