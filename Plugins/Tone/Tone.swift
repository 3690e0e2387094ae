import DeckSDK

/// Test signals an integrator uses to check speakers and the audio path; see `Signal` for items.
final class Tone: DeckAudioPlugin {
    static let descriptor = PluginDescriptor(
        id: "org.deck.tone", name: "Tone", version: "0.1.0", vendor: "Deck",
        description: "Test signals for checking speakers and the audio path")

    private let host: DeckHost
    /// Read by the audio thread only while the stream is open; replaced only while it is closed.
    private var signal: Signal?
    /// What to play once a delayed focus request is granted.
    private var waiting: Signal?

    init(host: DeckHost) throws {
        guard host.hasEntitlement("audio") else {
            throw DeckError(.notEntitled, "Tone needs the audio entitlement")
        }
        self.host = host
    }

    func activate() throws {
        try host.requestCallback()
    }

    func onCallback() {
        host.log(.info, "ready on \(host.name) \(host.version)" + (host.isLoopThread ? " (loop thread)" : ""))
    }

    func start(item: String?) throws {
        let item = item ?? Signal.defaultItem
        guard let signal = Signal(item: item) else {
            throw DeckError(.invalid, "unknown item \"\(item)\" (try stereo-440-660, sine-1000, sweep, pink-noise, silence)")
        }
        switch try host.requestFocus(context: "music", acceptsDelayed: true) {
        case .granted:
            try play(signal)
            host.log(.info, "playing \(item)")
        case .delayed(let reason):
            waiting = signal
            host.log(.info, "\(item) waits: \(reason)")
        case .rejected(let reason):
            throw DeckError(.state, reason)
        }
    }

    func stop() {
        try? host.closeStream()
        try? host.abandonFocus()
        signal = nil
        waiting = nil
    }

    func focusChanged(_ change: FocusChange) {
        switch change {
        case .loss:
            host.log(.info, "lost focus; stopping")
            stop()
        case .gain:
            if let waiting {
                self.waiting = nil
                try? play(waiting)
            }
        default:
            break  // the runtime ducks and mutes the stream itself
        }
    }

    private func play(_ signal: Signal) throws {
        try host.closeStream()  // render is not running after this returns, so the swap is safe
        self.signal = signal
        try host.openStream()
    }

    func render(frames: Int, into samples: UnsafeMutablePointer<Float>) -> Int {
        guard signal != nil else { return 0 }
        signal!.render(frames: frames, into: samples)
        return frames
    }

    func deactivate() {
        stop()
        host.log(.debug, "deactivated")
    }
}

@_cdecl("deck_plugin_entry")
public func deckPluginEntry() -> UnsafeRawPointer { DeckPluginExport.entry(for: Tone.self) }
