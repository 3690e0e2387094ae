import DeckSDK
import MediaPlayback

/// The driver's own music: the files in the integrator's media folders (FLAC, Ogg Opus/Vorbis,
/// MP3, AAC/M4A, WAV…), scanned off the loop, browsed by artist, album, genre and folder, played
/// gapless from an album or a folder with seek, shuffle and repeat, resumed where it stopped, and
/// brought to one loudness (ReplayGain 2.0 tags, else measured; album gain within an album).
final class Library: DeckAudioPlugin {
    static let descriptor = PluginDescriptor(
        id: "org.deck.library", name: "Library", version: "0.1.0", vendor: "Deck",
        description: "The music files on this car: artists, albums, genres and folders")

    let host: DeckHost
    let player: Player
    let scanner: LibraryScanner
    let settings: LibrarySettings
    /// The tracks the last scan found, then those of the queue it no longer found.
    var tracks: [Track] = []
    var listedTrackCount = 0
    /// The tracks the last scan found: what the tree and the counts show.
    var listedTracks: [Track] { Array(tracks.prefix(listedTrackCount)) }
    var tree: LibraryTree
    var scanning = true
    var measuring = false
    var problems: [String] = []
    /// What plays: track indexes in play order, the order before shuffling, the position in it.
    var queue: [Int] = []
    var unshuffled: [Int] = []
    var position = 0
    var shuffle = ShuffleMode.off
    var repeatMode = RepeatMode.off { didSet { player.repeatMode = repeatMode } }
    /// Where the sounding pass of the current track began in the player (a repeat begins anew).
    private var pass = -1
    var paused = false
    var streamOpen = false
    /// The tags and picture the playing file gave when it opened.
    var cover: [UInt8]?
    /// A cover now playing refused (too large for the car), not offered to it again.
    var refusedArtwork = RefusedArtwork()
    /// The screen, and the cover on it: handed over once, the one before removed once the screen moves on.
    let display: AppScreen
    var saved: LibraryState
    let statePath: String?
    var limit = 100
    private var waiting: (queue: [Int], index: Int, at: Double)?
    /// The item of a start the first scan has not found yet (`.some(nil)`: resume), tried again at each step.
    private var pendingStart: String??

    init(host: DeckHost) throws {
        guard host.hasEntitlement("audio") else { throw DeckError(.notEntitled, "Library needs the audio entitlement") }
        self.host = host
        display = AppScreen(host: host)
        settings = LibrarySettings(json: host.settings)
        for problem in settings.problems { host.log(.warning, "appSettings: \(problem)") }
        if settings.folders.isEmpty {
            host.log(.warning, host.hasPermission("media") ? "no media folders are configured (isolation.mediaFolders)"
                                                            : "Library holds no media permission: it cannot read music folders")
        }
        player = Player(host: host, target: settings.loudnessTarget)
        let indexPath = host.dataPath.map { "\($0)/library.json" }
        statePath = host.dataPath.map { "\($0)/library-state.json" }
        saved = statePath.flatMap { LibraryState.load($0, host: host) } ?? LibraryState()
        scanner = LibraryScanner(folders: settings.folders, indexPath: indexPath, host: host)
        tracks = LibraryScanner.savedIndex(indexPath)
        listedTrackCount = tracks.count
        tree = LibraryTree(tracks: tracks, folders: settings.folders, limit: limit)
    }

    func activate() throws {
        player.start()
        scanner.start(known: tracks)
    }

    func deactivate() {
        saveState()
        stop()
        scanner.shutDown()
        player.shutDown()
    }

    /// Destroyed without a deactivate first: its threads still end before it goes.
    deinit {
        scanner.shutDown()
        player.shutDown()
    }

    /// The track playing now, if any.
    var currentTrack: Track? { queue.indices.contains(position) ? tracks[queue[position]] : nil }

    /// `item`: a track's path (its album is the queue), `album:<key>`, `folder:<path>`; nil resumes
    /// where the driver stopped, else plays the first album. What the first scan has not found yet
    /// plays when it does (`deckd --play` at the first start).
    func start(item: String?) throws {
        let order: [Int], index: Int, at: Double
        do {
            (order, index, at) = try resolve(item)
        } catch {
            guard scanning else { throw error }
            if pendingStart == nil {
                host.log(.info, "waits for the scan to find \(item ?? "something to play")")
                // The session and the stream are held meanwhile, silent (in freewheel, waiting).
                player.awaitRequest()
                switch try host.requestFocus(context: "music", acceptsDelayed: true) {
                case .granted where !streamOpen:
                    try host.openStream()
                    streamOpen = true
                case .granted, .delayed:
                    break
                case .rejected(let reason):
                    throw DeckError(.state, reason)
                }
                try? host.enableCommands(Library.commands)  // pause or stop meanwhile calls the start off
            }
            pendingStart = .some(item)
            return
        }
        pendingStart = nil
        switch try host.requestFocus(context: "music", acceptsDelayed: true) {
        case .granted:
            try play(order, from: index, at: at)
        case .delayed(let reason):
            waiting = (order, index, at)
            host.log(.info, "waits: \(reason)")
        case .rejected(let reason):
            throw DeckError(.state, reason)
        }
    }

    private func resolve(_ item: String?) throws -> ([Int], Int, Double) {
        guard listedTrackCount > 0 else { throw DeckError(.state, scanning ? "the library is being scanned; nothing found yet" : "the library is empty") }
        let listed = tracks.indices.prefix(listedTrackCount)
        let byPath = Dictionary(listed.map { (tracks[$0].path, $0) }, uniquingKeysWith: { first, _ in first })
        guard let item else {
            let order = saved.queue.compactMap { byPath[$0] }
            if !order.isEmpty, let index = byPath[saved.queue[min(saved.index, saved.queue.count - 1)]].flatMap(order.firstIndex) {
                return (order, index, saved.position)
            }
            return (tree.tabs[1].children.first?.entryIndexes ?? [0], 0, 0)
        }
        // A path however spelt (a folder with the slash a shell's completion leaves, `./`, `//`) is the scan's.
        if item.hasPrefix("folder:/") {
            let path = FileBytes.normalized(String(item.dropFirst("folder:".count)))
            // With one media folder the Folders tab holds its contents: the tab is that folder.
            guard let node = find("folder:" + path, in: tree.tabs) ?? (settings.folders == [path] ? tree.tabs[3] : nil) else {
                throw DeckError(.invalid, "no \(item) in the library")
            }
            return (node.entryIndexes, 0, 0)
        }
        if item.hasPrefix("album:") || item.hasPrefix("folder:") || item.hasPrefix("artist:") || item.hasPrefix("genre:") {
            guard let node = find(item, in: tree.tabs) ?? findAsTyped(item) else {
                throw DeckError(.invalid, "no \(item) in the library" + (item.hasPrefix("album:") ? " (album:ARTIST – ALBUM, as the Albums tab names it)" : ""))
            }
            return (node.entryIndexes, 0, 0)
        }
        guard let index = byPath[FileBytes.normalized(item)] else { throw DeckError(.invalid, "no track \(item) in the library") }
        let album = listed.filter { tracks[$0].albumKey == tracks[index].albumKey }
        let order = find("album:\(tracks[index].albumKey)", in: tree.tabs)?.entryIndexes ?? album
        return (order, order.firstIndex(of: index) ?? 0, 0)
    }

    /// The container `item` names as a person types it: in any case, and `-` for the dash between
    /// an album's artist and title (`album:pink floyd - animals`); nil unless exactly one matches.
    private func findAsTyped(_ item: String) -> BrowseNode? {
        func folded(_ id: String) -> String { id.lowercased().replacing(" – ", with: " - ") }
        let wanted = folded(item)
        var matches: [BrowseNode] = []
        func walk(_ nodes: [BrowseNode]) {
            for node in nodes where node.entry == nil {
                if folded(node.id) == wanted, !matches.contains(where: { $0.id == node.id }) { matches.append(node) }
                walk(node.children)
            }
        }
        walk(tree.tabs)
        return matches.count == 1 ? matches[0] : nil
    }

    func find(_ id: String, in nodes: [BrowseNode]) -> BrowseNode? {
        for node in nodes {
            if node.id == id { return node }
            if node.entry == nil, let found = find(id, in: node.children) { return found }
        }
        return nil
    }

    /// Plays `order` from `index`, `at` seconds into it (focus is held).
    func play(_ order: [Int], from index: Int, at: Double = 0) throws {
        queue = order
        unshuffled = order
        shuffle = .off
        try playQueue(from: index, at: at)
    }

    /// Takes the music focus now (a tap or a command plays at once or not at all).
    func takeFocus() throws {
        switch try host.requestFocus(context: "music", acceptsDelayed: false) {
        case .granted: break
        case .delayed(let reason), .rejected(let reason): throw DeckError(.state, reason)
        }
    }

    /// (Re)starts the player on the queue from `index`. Not `resuming`, a paused or stopped Library
    /// stays so (a shuffle reorders what follows without starting to play).
    func playQueue(from index: Int, at: Double = 0, resuming: Bool = true) throws {
        let previous = currentTrack?.path
        position = max(0, min(index, queue.count - 1))
        pass = -1
        if currentTrack?.path != previous {  // a seek or a shuffle keeps the track's cover on screen
            cover = nil
        }
        // One album plays at its album gain (its quiet tracks stay quiet); a mix at track gains.
        let oneAlbum = Set(queue.map { tracks[$0].albumKey }).count == 1
        let items = queue.map { index in
            let track = tracks[index]
            return PlayerItem(url: track.path, loudness: oneAlbum ? track.albumLoudness ?? track.loudness : track.loudness ?? track.albumLoudness)
        }
        player.play(items, from: position, at: at)  // stopped or paused, it only decodes ahead (the cover comes with it)
        if resuming {
            paused = false
            if !streamOpen {
                try host.openStream()
                streamOpen = true
            }
            host.log(.info, "playing \(currentTrack.map { "\($0.artist) – \($0.title)" } ?? "?") (\(position + 1) of \(queue.count))")
        }
        publish(elapsed: at)
        saveState(elapsed: at)
    }

    /// Whether a start waits: for the focus, or for the first scan to find its track.
    var startWaits: Bool { waiting != nil || pendingStart != nil }

    /// Calls off a start waiting for the focus (pause pressed meanwhile): neither playing nor
    /// paused, the focus request goes too (a paused Library keeps its focus). One waiting for the
    /// first scan stops, giving back the silent stream and the focus it held. True when one waited.
    func callOffWaitingStart() -> Bool {
        if pendingStart != nil {
            stop()
            return true
        }
        guard waiting != nil else { return false }
        waiting = nil
        if !streamOpen, !paused { try? host.abandonFocus() }
        return true
    }

    func stop() {
        player.stop()
        try? host.closeStream()
        streamOpen = false
        paused = false
        try? host.abandonFocus()
        waiting = nil
        pendingStart = nil
        publishState(.stopped, elapsed: 0)
    }

    func render(frames: Int, into samples: UnsafeMutablePointer<Float>) -> Int {
        player.render(frames: frames, into: samples)
    }

    func onCallback() {
        if let progress = scanner.take() { apply(progress) }
        for event in player.events() {
            switch event {
            case .opened(let index, _, _, let picture):
                if index == position, let picture, picture != cover {
                    cover = picture
                    publish(elapsed: player.current?.elapsed ?? 0)
                }
            case .failed(let index, let reason):
                host.log(.warning, "skipped \(queue.indices.contains(index) ? tracks[queue[index]].path : "?"): \(reason)")
            case .tags, .reconnecting, .loudness:
                break
            }
        }
        followPlayer()
    }

    /// The player moved to the next track or finished the queue: follow it, repeat, or stop.
    func followPlayer() {
        player.armNextMark()  // also while paused, so a track reached just before the pause is seen at resume
        guard streamOpen, !paused else { return }
        if player.hasFinished {
            if repeatMode == .all, !queue.isEmpty { try? playQueue(from: 0) } else { finishQueue() }
            return
        }
        guard let now = player.current, now.index != position || now.pass != pass else { return }
        let first = pass < 0
        pass = now.pass
        if now.index == position {
            if first { return }
            // Repeat one was turned off while the player already played the track again: on to the next.
            if repeatMode == .off {
                if position + 1 < queue.count { try? playQueue(from: position + 1) } else { finishQueue() }
                return
            }
        } else if repeatMode == .one {
            // The player was past the track when repeat one was chosen: back to it.
            try? playQueue(from: position)
            return
        }
        position = now.index
        cover = nil
        publish(elapsed: now.elapsed)
        saveState(elapsed: now.elapsed)
    }

    /// The queue played to its end: it stands at its first track, stopped, where play starts it again.
    private func finishQueue() {
        stop()
        try? playQueue(from: 0, resuming: false)
    }

    /// A scan step arrived: the tree (and the browsers showing it) follow. The queue keeps what
    /// the driver chose: a queued track the scan no longer found (its stick pulled out) stays
    /// after the listed ones, and is skipped when the player cannot open it.
    private func apply(_ progress: LibraryScanner.Progress) {
        let listed = Set(progress.tracks.map(\.path))
        var gone: [String: Track] = [:]
        for index in queue + unshuffled where !listed.contains(tracks[index].path) { gone[tracks[index].path] = tracks[index] }
        let playing = queue.map { tracks[$0].path }, before = unshuffled.map { tracks[$0].path }
        tracks = progress.tracks + gone.values.sorted { $0.path < $1.path }
        listedTrackCount = progress.tracks.count
        scanning = progress.scanning
        measuring = progress.measuring
        problems = progress.problems
        tree = progress.tree ?? LibraryTree(tracks: listedTracks, folders: settings.folders, limit: limit)
        let byPath = Dictionary(tracks.indices.map { (tracks[$0].path, $0) }, uniquingKeysWith: { first, _ in first })
        queue = playing.compactMap { byPath[$0] }
        unshuffled = before.compactMap { byPath[$0] }
        try? host.reloadContent()
        refreshScreen()
        if let item = pendingStart {
            do {
                try start(item: item)
            } catch {
                stop()  // lets go of the focus and the stream it held while it waited
                host.log(.warning, "cannot play \(item ?? "the library"): \((error as? DeckError)?.message ?? "\(error)")")
            }
        }
    }

    func focusChanged(_ change: FocusChange) {
        switch change {
        case .loss:
            saveState()
            stop()
        case .lossTransient where !paused:  // a paused Library stays paused through a call
            publishState(.interrupted, elapsed: player.current?.elapsed ?? 0)
        case .gain:
            if let waiting {
                self.waiting = nil
                try? play(waiting.queue, from: waiting.index, at: waiting.at)
            } else if streamOpen {  // a pause closed it: a paused Library said nothing at the loss
                publishState(.playing, elapsed: player.current?.elapsed ?? 0)
            }
        default:
            break
        }
    }

    /// Keeps what plays and where, so the next start resumes there.
    func saveState(elapsed: Double? = nil) {
        guard let statePath, !queue.isEmpty else { return }
        saved = LibraryState(queue: queue.map { tracks[$0].path }, index: position,
                             position: elapsed ?? player.current?.elapsed ?? 0)
        if let problem = saved.write(to: statePath) { host.log(.warning, "cannot save \(statePath): \(problem)") }
    }
}

@_cdecl("deck_plugin_entry")
public func deckPluginEntry() -> UnsafeRawPointer { DeckPluginExport.entry(for: Library.self) }
