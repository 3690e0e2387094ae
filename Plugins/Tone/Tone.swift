import DeckSDK
import Synchronization

/// Test signals an integrator uses to check speakers and the audio path; see `Signal` for items.
/// It owns now playing while it plays: the signal's name, its position, and a queue of its signals
/// that next and previous walk.
final class Tone: DeckAudioPlugin {
    static let descriptor = PluginDescriptor(
        id: "org.deck.tone", name: "Tone", version: "0.3.0", vendor: "Deck",
        description: "Test signals for checking speakers and the audio path")

    let host: DeckHost
    /// Read by the audio thread only while the stream is open; replaced only while it is closed.
    var signal: Signal?
    /// The item of `signal`, and the queue it sits in.
    var item: String?
    var queue = Signal.playlist
    var repeatMode: RepeatMode = .off
    /// Paused by a remote command: the stream is closed, the signal keeps its place.
    var paused = false
    /// The list on the display while one is attached, and the icon it shows.
    var rootID: UInt64?
    var iconID: UInt64?
    /// What to play once a delayed focus request is granted.
    private var waiting: String?
    /// Frames rendered of the current item, written by the audio thread, for the position.
    let framesRendered = Atomic<Int>(0)
    /// Set by the audio thread when a sweep pass ended; handled in `onCallback`.
    let passEnded = Atomic<Bool>(false)

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
        if passEnded.exchange(false, ordering: .acquiringAndReleasing) {
            itemEnded()
        } else {
            host.log(.info, "ready on \(host.name) \(host.version)" + (host.isLoopThread ? " (loop thread)" : ""))
        }
    }

    func start(item: String?) throws {
        let item = item ?? Signal.defaultItem
        guard Signal(item: item) != nil else {
            throw DeckError(.invalid, "unknown item \"\(item)\" (try \(Signal.playlist.joined(separator: ", ")), sine-F or stereo-L-R, each F from 1 to under \(Int(Signal.sampleRate / 2)) Hz)")
        }
        switch try host.requestFocus(context: "music", acceptsDelayed: true) {
        case .granted:
            try play(item)
            host.log(.info, "playing \(item)")
        case .delayed(let reason):
            waiting = item
            host.log(.info, "\(item) waits: \(reason)")
        case .rejected(let reason):
            throw DeckError(.state, reason)
        }
    }

    /// Whether a start waits for the focus.
    var startWaits: Bool { waiting != nil }

    /// Calls off a start waiting for the focus (pause pressed meanwhile): with no signal kept, the
    /// focus request goes too. True when one waited.
    func callOffWaitingStart() -> Bool {
        guard waiting != nil else { return false }
        waiting = nil
        if signal == nil { try? host.abandonFocus() }
        return true
    }

    func stop() {
        try? host.closeStream()
        try? host.abandonFocus()
        signal = nil
        waiting = nil
        paused = false
        publishPosition(state: .stopped)
    }

    func focusChanged(_ change: FocusChange) {
        switch change {
        case .loss:
            host.log(.info, "lost focus; stopping")
            stop()
        case .lossTransient where !paused:  // a paused Tone stays paused through a call
            publishPosition(state: .interrupted)  // the runtime pauses the stream itself
        case .gain:
            if let waiting {
                self.waiting = nil
                try? play(waiting)
            } else if signal != nil, !paused {
                publishPosition(state: .playing)
            }
        default:
            break  // the runtime ducks the stream itself
        }
    }

    /// Plays `item` from its start, in the queue (it joins the front when it is not in it).
    func play(_ item: String) throws {
        guard var signal = Signal(item: item) else { throw DeckError(.invalid, "unknown item \"\(item)\"") }
        try host.closeStream()  // render is not running after this returns, so the swap is safe
        if !queue.contains(item) { queue.insert(item, at: 0) }
        signal.seek(to: 0)
        self.signal = signal
        self.item = item
        paused = false
        framesRendered.store(0, ordering: .relaxed)
        try host.openStream()
        publish()
    }

    func render(frames: Int, into samples: UnsafeMutablePointer<Float>) -> Int {
        guard signal != nil else { return 0 }
        if signal!.render(frames: frames, into: samples) {
            framesRendered.store(0, ordering: .relaxed)
            passEnded.store(true, ordering: .releasing)
            try? host.requestCallback()
        } else {
            framesRendered.add(frames, ordering: .relaxed)
        }
        return frames
    }

    func deactivate() {
        stop()
        host.log(.debug, "deactivated")
    }
}

@_cdecl("deck_plugin_entry")
public func deckPluginEntry() -> UnsafeRawPointer { DeckPluginExport.entry(for: Tone.self) }
