import DeckSDK
import MediaPlayback

/// Library on the car's display: a list (what plays with its cover, the scan's progress, the
/// albums) and the browse tree (Artists, Albums, Genres, Folders; long levels in sections).
extension Library: DeckUIPlugin, DeckContentPlugin {
    func displayChanged(attached: Bool) { display.displayChanged(attached: attached, screen) }

    func limitsChanged(_ limits: String) {
        guard let rows = BrowseNode.rowLimit(fromLimits: limits), rows != limit else { return }
        limit = rows
        scanner.limit.store(limit, ordering: .relaxed)
        tree = LibraryTree(tracks: listedTracks, folders: settings.folders, limit: limit)
        try? host.reloadContent()
    }

    func select(templateID: UInt64, key: String, token: UInt64) {
        let item = tree.tabs[1].children.first { !$0.isSection && RowKey.of($0.id) == key }?.id ?? key
        do { try start(item: item) } catch { host.log(.warning, "\(item) did not play: \(error)") }
        try? host.completeSelection(token)
    }

    var statusText: String {
        if scanning { return "Scanning… \(Track.counted(listedTrackCount)) so far" }
        if measuring { return "\(Track.counted(listedTrackCount)) · measuring loudness" }
        return Track.counted(listedTrackCount) + (problems.isEmpty ? "" : " · \(problems.count) skipped")
    }

    var screen: DeckTemplate {
        let playing = currentTrack.map { track in
            DeckItem(track.title, detail: "\(track.artist) · \(track.album)\(paused ? " · paused" : "")", image: coverImage, playing: true)
        } ?? DeckItem("Nothing playing", detail: statusText)
        let albums = tree.tabs[1].children.prefix(limit).map { node in
            DeckItem(key: node.isSection ? nil : RowKey.of(node.id), node.title, detail: node.subtitle)
        }
        return .list("Library", sections: [DeckSection(header: "Now playing", items: [playing]),
                                           DeckSection(header: "Albums · \(statusText)", items: Array(albums))])
    }

    private var coverImage: UInt64? { cover.flatMap { display.images.id("cover", $0) } }

    func refreshScreen() { display.refresh(screen) }

    func childCount(at path: [Int]) -> Int? {
        path.isEmpty ? tree.tabs.count : tree.node(at: path)?.children.count ?? 0
    }

    func item(at path: [Int]) -> DeckContentItem? {
        guard let node = tree.node(at: path) else { return nil }
        if let index = node.entry {
            let track = tracks[index]
            return DeckContentItem(id: track.path, title: track.title, subtitle: "\(track.artist) · \(track.album)", playable: true)
        }
        return DeckContentItem(id: node.id, title: node.title, subtitle: node.subtitle, container: true)
    }

    func play(at path: [Int], token: UInt64) {
        guard let node = tree.node(at: path), let index = node.entry, let owner = node.queueOwner else {
            try? host.completeContent(token, .invalid)
            return
        }
        // The queue is the container the track was chosen in: its album, its genre, its folder.
        let order = owner.entryIndexes
        do {
            try takeFocus()
            try play(order, from: order.firstIndex(of: index) ?? 0)
            try host.completeContent(token)
        } catch {
            try? host.completeContent(token, .state)
        }
    }
}
