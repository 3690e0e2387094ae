import DeckSDK
import Synchronization

/// Says a sentence, as a navigation app's prompts do: `apps.launch {"id": "org.deck.prompts",
/// "item": "Turn left in 200 metres"}` asks for transient focus that may duck (what plays goes
/// quieter), speaks, then lets go (what played comes back).
final class Prompts: DeckAudioPlugin {
    static let descriptor = PluginDescriptor(
        id: "org.deck.prompts", name: "Prompts", version: "0.1.0", vendor: "Deck",
        description: "Spoken prompts: says a sentence under navigation focus, ducking what plays")

    /// The longest sentence said: about 25 s of speech, synthesised on the loop thread in about
    /// 35 ms (20,000 characters took over a second, and the runtime ended the unanswering host).
    static let maxCharacters = 500

    let host: DeckHost
    /// Read by the audio thread only while the stream is open; replaced only while it is closed.
    private var speech: Speech?
    private var position = 0
    /// Set by the audio thread when the last sample went out; handled in `onCallback`.
    private let finished = Atomic<Bool>(false)

    init(host: DeckHost) throws {
        guard host.hasEntitlement("audio"), host.hasEntitlement("maps") else {
            throw DeckError(.notEntitled, "Prompts needs the audio and maps entitlements (navigation focus)")
        }
        self.host = host
    }

    func activate() throws {}

    func start(item: String?) throws {
        guard let text = item, !text.allSatisfy(\.isWhitespace) else {
            throw DeckError(.invalid, "give the sentence to say as the item")
        }
        // Bytes first: counting the characters of a megabyte is itself slow.
        guard text.utf8.count <= 4 * Prompts.maxCharacters, text.count <= Prompts.maxCharacters else {
            throw DeckError(.invalid, "a prompt is at most \(Prompts.maxCharacters) characters (\(4 * Prompts.maxCharacters) bytes); say a longer text in parts")
        }
        let spoken: Speech
        do { spoken = try Speech.synthesize(text) } catch { throw DeckError(.internal, "\(error)") }
        // Ducking what plays for a silence would only be a dip in the music.
        guard spoken.isAudible else { throw DeckError(.invalid, "there is no word to say in the text; give the sentence to say as the item") }
        // A transient request never waits (AAOS's rule): a prompt is said now or not at all.
        switch try host.requestFocus(context: "navigation", type: .gainTransientMayDuck) {
        case .granted:
            try speak(spoken)
            host.log(.info, "saying \"\(text)\" (\(spoken.frames / 48) ms)")
        case .delayed(let reason), .rejected(let reason):
            throw DeckError(.state, reason)
        }
    }

    private func speak(_ spoken: Speech) throws {
        try host.closeStream()  // render is not running after this returns, so the swap is safe
        speech = spoken
        position = 0
        finished.store(false, ordering: .relaxed)
        try host.openStream()
    }

    func render(frames: Int, into samples: UnsafeMutablePointer<Float>) -> Int {
        guard let speech, position < speech.frames else { return 0 }
        let count = min(frames, speech.frames - position)
        speech.samples.withUnsafeBufferPointer { source in
            samples.update(from: source.baseAddress! + position * 2, count: count * 2)
        }
        position += count
        if count < frames {
            (samples + count * 2).update(repeating: 0, count: (frames - count) * 2)
        }
        if position >= speech.frames, !finished.exchange(true, ordering: .acquiringAndReleasing) {
            try? host.requestCallback()
        }
        return frames
    }

    /// The prompt is out: the stream closes and the focus goes, so what was ducked comes back.
    func onCallback() {
        guard finished.load(ordering: .acquiring) else { return }
        stop()
    }

    func stop() {
        try? host.closeStream()
        try? host.abandonFocus()
        speech = nil
    }

    /// A prompt that lost its moment, for good or for a while (a call, a voice command), is not
    /// said later: by then the turn it names may be behind the car.
    func focusChanged(_ change: FocusChange) {
        if change == .loss || change == .lossTransient { stop() }
    }

    func deactivate() { stop() }
}

@_cdecl("deck_plugin_entry")
public func deckPluginEntry() -> UnsafeRawPointer { DeckPluginExport.entry(for: Prompts.self) }
