import DeckSDK
import FoundationEssentials
import MediaPlayback

/// Internet radio as SwiftRadio built it: a station list (SwiftRadio's stations.json), HTTP and
/// Icecast streams decoded by FFmpeg with their ICY or Ogg titles, reconnection with backoff,
/// favourites, a browse tree and a list screen; loudness brought to one target as it plays.
final class Radio: DeckAudioPlugin {
    static let descriptor = PluginDescriptor(
        id: "org.deck.radio", name: "Radio", version: "0.1.0", vendor: "Deck",
        description: "Internet radio: Icecast and HTTP streams with their titles, a station list, favourites")

    /// What the driver sees of the connection.
    enum Status: Equatable {
        case idle
        case connecting
        case playing
        case buffering
        case reconnecting(attempt: Int, of: Int, seconds: Double)
        case failed(String)
        case paused
        /// Another app holds the focus for a while (a call): the connection is let go, and tuned
        /// again, live, when the focus comes back.
        case interrupted
    }

    let host: DeckHost
    let player: Player
    let watcher: StationWatcher
    var stations: [Station] = []
    var images: [String: [UInt8]] = [:]
    /// A picture now playing refused (too large for the car), not offered to it again.
    var refusedArtwork = RefusedArtwork()
    /// The station playing or last played (its id), and how it goes.
    var currentID: String?
    var status = Status.idle
    var streamTags: [String: String] = [:]
    var saved: RadioState
    let statePath: String?
    var streamOpen = false
    /// Each station's loudness estimate as last measured in this run (kept by `keepLoudness`).
    private var lastLoudness: [String: Double] = [:]
    private var waiting: String?
    /// The list on the display while one is attached, and the stations' pictures handed over for it.
    let display: AppScreen
    /// The browse tree's tabs, and the rows a level of it may show.
    var tree = Radio.tree(stations: [], favourites: [], limit: 100)
    var rowLimit = 100

    init(host: DeckHost) throws {
        guard host.hasEntitlement("audio") else { throw DeckError(.notEntitled, "Radio needs the audio entitlement") }
        self.host = host
        display = AppScreen(host: host)
        let settings = RadioSettings(json: host.settings)
        for problem in settings.problems { host.log(.warning, "appSettings: \(problem)") }
        player = Player(host: host, target: settings.loudnessTarget)
        statePath = host.dataPath.map { "\($0)/radio.json" }
        saved = statePath.flatMap { RadioState.load($0, host: host) } ?? RadioState()
        // The configured file; else the data folder's once it exists, the bundle's example until then.
        let candidates = settings.stations.map { [$0] }
            ?? [host.dataPath, DeckPluginExport.bundlePath].compactMap { $0.map { "\($0)/stations.json" } }
        watcher = StationWatcher(candidates: candidates, host: host)
        if !host.hasPermission("network") { host.log(.warning, "Radio holds no network permission: streams on other hosts will not open") }
    }

    func activate() throws {
        player.start()
        watcher.start()
        onCallback()
    }

    func deactivate() {
        stop()
        watcher.shutDown()
        player.shutDown()
    }

    /// Destroyed without a deactivate first: its threads still end before it goes.
    deinit {
        watcher.shutDown()
        player.shutDown()
    }

    var current: Station? { stations.first { $0.id == currentID } }

    /// `item` is a station's id (its stream URL) or its name; nil: the last one played, else the first.
    func start(item: String?) throws {
        // With no item, the station played last while the list still has it (an updated list may not), else the first.
        let wanted = item ?? [currentID, saved.last].compactMap { $0 }.first { id in stations.contains { $0.id == id } } ?? stations.first?.id
        // A name as a person types it, in any case, when it names one station.
        let typed = stations.filter { $0.name.lowercased() == wanted?.lowercased() }
        guard let station = stations.first(where: { $0.id == wanted || $0.name == wanted }) ?? (typed.count == 1 ? typed[0] : nil) else {
            throw DeckError(.invalid, stations.isEmpty ? "the station list is empty (\(watcher.path))" : "no station \"\(wanted ?? "")\"")
        }
        switch try host.requestFocus(context: "music", acceptsDelayed: true) {
        case .granted:
            try tune(station)
        case .delayed(let reason):
            waiting = station.id
            host.log(.info, "\(station.name) waits: \(reason)")
        case .rejected(let reason):
            throw DeckError(.state, reason)
        }
    }

    /// Plays `station` now (focus is held).
    func tune(_ station: Station) throws {
        keepLoudness()
        currentID = station.id
        streamTags = [:]
        status = .connecting
        player.play([PlayerItem(url: station.streamURL, live: true, seed: lastLoudness[station.id] ?? saved.loudness[station.id])], from: 0)
        if !streamOpen {
            try host.openStream()
            streamOpen = true
        }
        if saved.last != station.id {
            saved.last = station.id
            save()
        }
        host.log(.info, "tuning to \(station.name) (\(station.streamURL))")
        publish()
    }

    /// Whether a start waits for the focus.
    var startWaits: Bool { waiting != nil }

    /// Calls off a start waiting for the focus (pause or stop pressed meanwhile): with no stream
    /// open, the focus request goes too. True when one waited.
    func callOffWaitingStart() -> Bool {
        guard waiting != nil else { return false }
        waiting = nil
        if !streamOpen { try? host.abandonFocus() }
        return true
    }

    func stop() {
        player.stop()
        try? host.closeStream()
        streamOpen = false
        try? host.abandonFocus()
        waiting = nil
        if status != .idle, !isFailed { status = .idle }
        publishState(.stopped)
    }

    var isFailed: Bool { if case .failed = status { true } else { false } }

    /// Whether a station it tuned owns now playing: it plays, or a pause or a call keeps it (a
    /// publish by an app that lost it to another is refused, and logged).
    var ownsNowPlaying: Bool { current != nil && (streamOpen || status == .paused) }

    func render(frames: Int, into samples: UnsafeMutablePointer<Float>) -> Int {
        player.render(frames: frames, into: samples)
    }

    func onCallback() {
        if let update = watcher.take() { apply(update) }
        for event in player.events() { handle(event) }
        if currentID != nil, streamOpen {
            switch status {
            case .connecting, .playing, .buffering:
                let now: Status = player.isBuffering ? (status == .connecting ? .connecting : .buffering) : .playing
                if now != status {
                    status = now
                    publishState(.playing)
                }
            default:
                break
            }
        }
    }

    private func handle(_ event: PlayerEvent) {
        // What the stream said as it was stopped (a pause, a stop, a call) is moot until it is tuned
        // again: a drop it reported then would show a paused station reconnecting, and "playing".
        // Its loudness estimate is kept whatever became of it.
        if case .loudness = event {} else { guard status != .interrupted, streamOpen else { return } }
        switch event {
        case .opened(_, let tags, _, _):
            if case .reconnecting = status {
                host.log(.info, "\(current?.name ?? "the stream") is back")
                status = .buffering
            }
            streamTags = tags
            publish()
        case .tags(_, let tags):
            streamTags = tags
            host.log(.info, "now on \(current?.name ?? "?"): \(streamTags["artist"].map { "\($0) – " } ?? "")\(streamTags["title"] ?? "")")
            publish()
        case .reconnecting(_, let attempt, let of, let seconds, let reason):
            status = .reconnecting(attempt: attempt, of: of, seconds: seconds)
            host.log(.warning, "\(current?.name ?? "the stream") dropped (\(reason)); reconnecting in \(seconds) s, attempt \(attempt) of \(of)")
            publishState(.playing)
        case .failed(_, let reason):
            host.log(.error, "\(current?.name ?? "the stream") cannot play: \(reason)")
            status = .failed(reason)
            stop()
        case .loudness(_, let estimate):
            if let currentID {
                saved.loudness[currentID] = (estimate * 10).rounded() / 10
                save()
            }
        }
    }

    /// Keeps what the station last played measured, however briefly it played, as where it starts
    /// when tuned again in this run (after a pause or a call): at the level it left at. The player
    /// keeps that estimate until it opens another stream, which only `tune` asks for, so `tune`
    /// calls this first. Only estimates of 10 s of listening or more are saved for another day.
    private func keepLoudness() {
        guard let station = current, let estimate = player.loudnessEstimate(of: station.streamURL) else { return }
        lastLoudness[station.id] = estimate
    }

    /// A new station list arrived (or could not be read): the tree and the screen follow it.
    private func apply(_ update: StationWatcher.Update) {
        switch update {
        case .loaded(let list, let pictures, let path, let skipped):
            let changed = list.station != stations
            stations = list.station
            images = pictures
            // Estimates of stations no longer listed go, so the file does not grow with every list there was.
            let listed = Set(stations.map(\.id))
            if !list.station.isEmpty, saved.loudness.keys.contains(where: { !listed.contains($0) }) {
                saved.loudness = saved.loudness.filter { listed.contains($0.key) }
                save()
            }
            host.log(.info, "\(stations.count) stations from \(path)")
            if !skipped.isEmpty {
                let more = skipped.count > 3 ? " and \(skipped.count - 3) more" : ""
                host.log(.warning, "left out of \(path): \(skipped.prefix(3).joined(separator: "; "))\(more)")
            }
            if changed { rebuildTree() }
            // While it owns now playing, the queue and the commands follow the list.
            if changed, ownsNowPlaying { publish() } else { refreshScreen() }
        case .pictures(let more):
            images.merge(more) { $1 }
            if let currentID, more[currentID] != nil, ownsNowPlaying { publish() } else { refreshScreen() }  // publish refreshes the screen too
        case .failed(let reason):
            host.log(.warning, "station list kept as it was: \(reason)")
        }
    }

    func focusChanged(_ change: FocusChange) {
        switch change {
        case .loss:
            host.log(.info, "lost focus; stopping")
            stop()
        case .lossTransient:
            // Held through a call, the connection would stall and the ring play minutes-old audio after it.
            if streamOpen, current != nil {
                player.stop()
                status = .interrupted
            }
            publishState(.interrupted)
        case .gain:
            if let waiting, let station = stations.first(where: { $0.id == waiting }) {
                self.waiting = nil
                try? tune(station)
            } else if status == .interrupted, streamOpen {
                guard let station = current else {
                    host.log(.info, "the station left the list during the interruption; stopping")
                    return stop()
                }
                try? tune(station)
            } else if streamOpen {
                publishState(.playing)
            }
        default:
            break
        }
    }

    func save() {
        guard let statePath else { return }
        if let problem = FileBytes.write(saved.encoded, to: statePath) { host.log(.warning, "cannot save \(statePath): \(problem)") }
    }
}

@_cdecl("deck_plugin_entry")
public func deckPluginEntry() -> UnsafeRawPointer { DeckPluginExport.entry(for: Radio.self) }
