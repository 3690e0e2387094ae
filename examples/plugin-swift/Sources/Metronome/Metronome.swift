import DeckSDK
import Glibc
import Synchronization

/// A small but complete Deck audio app in Swift: a click at a chosen tempo (the first beat of each
/// bar higher), a list on the car's screen, the same tempos as a content tree, now playing with
/// play, pause, next and previous, and the audio focus rules of the plugin guide.
final class Metronome: DeckAudioPlugin {
    static let descriptor = PluginDescriptor(id: "org.example.metronome", name: "Metronome", version: "1.0.0", vendor: "Example",
                                             description: "A click at 60 to 180 beats a minute")
    static let tempos = [60, 90, 120, 150, 180]
    static let sampleRate = 48_000.0

    let host: DeckHost
    /// Beats a minute; read by the audio thread only while the stream is open, set while it is closed.
    var tempo: Int?
    var paused = false
    var rootID: UInt64?
    /// Frames rendered since the tempo started, for the clicks' phase and the elapsed time.
    let frames = Atomic<Int>(0)

    init(host: DeckHost) throws {
        guard host.hasEntitlement("audio") else { throw DeckError(.notEntitled, "Metronome needs the audio entitlement") }
        self.host = host
    }

    static func item(_ tempo: Int) -> String { "bpm-\(tempo)" }

    static func tempo(of item: String) -> Int? {
        guard item.hasPrefix("bpm-"), let value = Int(item.dropFirst(4)), tempos.contains(value) else { return nil }
        return value
    }

    func start(item: String?) throws {
        let item = item ?? Metronome.item(120)
        guard let tempo = Metronome.tempo(of: item) else {
            throw DeckError(.invalid, "unknown item \"\(item)\" (try \(Metronome.tempos.map(Metronome.item).joined(separator: ", ")))")
        }
        guard try host.requestFocus(context: "music") == .granted else { throw DeckError(.state, "music focus was not granted") }
        try host.closeStream()  // render is not running after this returns: the tempo can change
        self.tempo = tempo
        paused = false
        frames.store(0, ordering: .relaxed)
        try host.openStream()
        publish()
    }

    func stop() {
        try? host.closeStream()
        try? host.abandonFocus()
        tempo = nil
        paused = false
        publish()
    }

    func deactivate() { stop() }

    /// Losing focus for good stops; a transient loss is a pause the runtime makes (the stream is
    /// held), so now playing says interrupted until focus comes back; ducking is the runtime's.
    func focusChanged(_ change: FocusChange) {
        switch change {
        case .loss: stop()
        case .lossTransient: publish(state: .interrupted)
        case .gain where tempo != nil && !paused: publish()
        default: break
        }
    }

    func render(frames count: Int, into samples: UnsafeMutablePointer<Float>) -> Int {
        guard let tempo else { return 0 }
        let beat = Int(Metronome.sampleRate * 60) / tempo, click = Int(Metronome.sampleRate * 0.03)
        let start = frames.add(count, ordering: .relaxed).oldValue
        for frame in 0..<count {
            let position = start + frame, phase = position % beat
            var value: Float = 0
            if phase < click {
                let pitch = (position / beat) % 4 == 0 ? 1_500.0 : 1_000.0
                let time = Double(phase) / Metronome.sampleRate
                value = Float(0.5 * exp(-time * 150) * sin(2 * Double.pi * pitch * time))
            }
            samples[2 * frame] = value
            samples[2 * frame + 1] = value
        }
        return count
    }
}

/// Now playing and the remote commands.
extension Metronome: DeckNowPlayingPlugin {
    func publish(state: PlaybackState? = nil) {
        let state = state ?? (tempo == nil ? .stopped : paused ? .paused : .playing)
        if let tempo {
            var info = NowPlaying(title: "\(tempo) BPM", artists: ["Metronome"], album: "Tempos",
                                  elapsed: Double(frames.load(ordering: .relaxed)) / Metronome.sampleRate, state: state)
            info.isLive = true
            try? host.setNowPlaying(info)
            try? host.setQueue(Metronome.tempos.map { QueueEntry(id: Metronome.item($0), title: "\($0) BPM", artist: "Metronome") },
                               current: Metronome.tempos.firstIndex(of: tempo))
            // Next and previous only where a tempo lies that way: at the ends the head unit greys them out.
            let index = Metronome.tempos.firstIndex(of: tempo) ?? 0
            var commands: Set<RemoteCommand.Kind> = [.play, .pause, .togglePlayPause, .stop]
            if index > 0 { commands.insert(.previous) }
            if index + 1 < Metronome.tempos.count { commands.insert(.next) }
            try? host.enableCommands(commands)
        } else {
            try? host.setPosition(elapsed: 0, rate: 0, state: .stopped)
        }
        showScreen()
    }

    func handle(_ command: RemoteCommand, token: UInt64) -> CommandResult? {
        switch command {
        case .togglePlayPause:
            return handle(tempo != nil && !paused ? .pause : .play, token: token)
        case .play where paused:
            guard (try? host.requestFocus(context: "music")) == .granted, (try? host.openStream()) != nil else { return .commandFailed }
            paused = false
            publish()
        case .play:
            return (try? start(item: tempo.map(Metronome.item))) != nil ? .success : .commandFailed
        case .pause:
            guard tempo != nil else { return .noActionableNowPlayingItem }
            try? host.closeStream()
            paused = true
            publish()
        case .stop:
            stop()
        case .next, .previous:
            guard let tempo, let index = Metronome.tempos.firstIndex(of: tempo) else { return .noActionableNowPlayingItem }
            let target = index + (command == .next ? 1 : -1)
            guard Metronome.tempos.indices.contains(target) else { return .noSuchContent }
            return (try? start(item: Metronome.item(Metronome.tempos[target]))) != nil ? .success : .commandFailed
        default:
            return .commandFailed
        }
        return .success
    }
}

/// The car's screen (a list of tempos, the one playing marked) and the content tree (one tab).
extension Metronome: DeckUIPlugin, DeckContentPlugin {
    func displayChanged(attached: Bool) {
        rootID = nil
        if attached { showScreen() }
    }

    var screen: DeckTemplate {
        .list("Metronome", sections: [DeckSection(header: "Tempo", items: Metronome.tempos.map { value in
            DeckItem(key: Metronome.item(value), "\(value) BPM", detail: value == tempo && paused ? "paused" : nil, playing: value == tempo)
        })])
    }

    /// Sets the list once, then refreshes it in place (a refresh costs no template quota).
    func showScreen() {
        if let rootID {
            _ = try? host.update(rootID, screen)
        } else {
            rootID = try? host.setRoot(screen).id
        }
        try? host.setNowPlayingContent(tempo.map { [Metronome.item($0)] } ?? [])
    }

    func select(templateID: UInt64, key: String, token: UInt64) {
        do { try start(item: key) } catch { host.log(.warning, "\(key) did not play: \(error)") }
        try? host.completeSelection(token)
    }

    func childCount(at path: [Int]) -> Int? { path.isEmpty ? 1 : path == [0] ? Metronome.tempos.count : 0 }

    func item(at path: [Int]) -> DeckContentItem? {
        guard path.first == 0 else { return nil }
        guard path.count == 2 else { return DeckContentItem(id: "tempos", title: "Tempos", container: true) }
        guard Metronome.tempos.indices.contains(path[1]) else { return nil }
        let value = Metronome.tempos[path[1]]
        return DeckContentItem(id: Metronome.item(value), title: "\(value) BPM", playable: true, streaming: true)
    }

    func play(at path: [Int], token: UInt64) {
        guard let item = item(at: path), item.playable else { return (try? host.completeContent(token, .invalid)) ?? () }
        do {
            try start(item: item.id)
            try host.completeContent(token)
        } catch {
            try? host.completeContent(token, .state)
        }
    }
}

@_cdecl("deck_plugin_entry")
public func deckPluginEntry() -> UnsafeRawPointer { DeckPluginExport.entry(for: Metronome.self) }
