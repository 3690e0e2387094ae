import DeckSDK
import MediaPlayback

/// Radio on the car's display: a list (what plays and how the connection goes, favourites, every
/// station) and the browse tree of the tutorial: Stations, Genres and Favourites tabs.
extension Radio: DeckUIPlugin, DeckContentPlugin {
    static let toggleFavourite = "favourite"
    /// A favourite's row key: the station's id behind this prefix (a template's keys are unique,
    /// and a favourite is also listed among the stations).
    static let favouritePrefix = "favourite:"
    static let tabs = ["Stations", "Genres", "Favourites"]

    func displayChanged(attached: Bool) { display.displayChanged(attached: attached, screen) }

    func select(templateID: UInt64, key: String, token: UInt64) {
        if key == Radio.toggleFavourite, let currentID {
            if let index = saved.favourites.firstIndex(of: currentID) { saved.favourites.remove(at: index) } else { saved.favourites.append(currentID) }
            save()
            rebuildTree()
            refreshScreen()
        } else {
            let item = stations.first { RowKey.of($0.id) == key || RowKey.of($0.id, prefix: Radio.favouritePrefix) == key }?.id ?? key
            do { try start(item: item) } catch { host.log(.warning, "\(item) did not play: \(error)") }
        }
        try? host.completeSelection(token)
    }

    /// The connection in words, for the screen.
    var statusText: String {
        switch status {
        case .idle: "Stopped"
        case .connecting: "Connecting…"
        case .playing: "Live"
        case .buffering: "Buffering…"
        case .paused: "Paused"
        case .interrupted: "Interrupted"
        case .reconnecting(let attempt, let of, let seconds): "Reconnecting in \(seconds) s (attempt \(attempt) of \(of))"
        case .failed(let reason): "Cannot play: \(reason)"
        }
    }

    var screen: DeckTemplate {
        let nowPlaying = current.map { station in
            DeckItem(key: Radio.toggleFavourite, streamTitle ?? station.name, detail: "\(station.name) · \(statusText)",
                     image: imageID(for: station), accessory: nil, playing: true)
        } ?? DeckItem("Nothing playing", detail: statusText)
        var sections = [DeckSection(header: "Now playing", items: [nowPlaying])]
        let favourites = stations.filter { saved.favourites.contains($0.id) }
        if !favourites.isEmpty { sections.append(DeckSection(header: "Favourites", items: favourites.map { row($0, keyPrefix: Radio.favouritePrefix) })) }
        sections.append(DeckSection(header: "Stations", items: stations.map { row($0) }))
        return .list("Radio", sections: sections)
    }

    private func row(_ station: Station, keyPrefix: String = "") -> DeckItem {
        DeckItem(key: RowKey.of(station.id, prefix: keyPrefix), station.name, detail: station.desc, image: imageID(for: station), playing: station.id == currentID)
    }

    private func imageID(for station: Station) -> UInt64? { images[station.id].flatMap { display.images.id(station.id, $0) } }

    func refreshScreen() { display.refresh(screen) }

    func limitsChanged(_ limits: String) {
        guard let rows = BrowseNode.rowLimit(fromLimits: limits), rows != rowLimit else { return }
        rowLimit = rows
        rebuildTree()
    }

    /// The browse tree again (the stations, the favourites or the limits changed), and the HMI told.
    func rebuildTree() {
        tree = Radio.tree(stations: stations, favourites: saved.favourites, limit: rowLimit)
        try? host.reloadContent()
    }

    /// The tutorial's tabs: Stations, Genres › stations and Favourites; a level longer than the
    /// display shows is cut into sections, so every station can be reached.
    static func tree(stations: [Station], favourites: [String], limit: Int) -> [BrowseNode] {
        func node(_ index: Int) -> BrowseNode {
            BrowseNode(id: stations[index].id, title: stations[index].name, subtitle: stations[index].desc, entry: index)
        }
        let genres = StationList(station: stations).genres.map { genre in
            BrowseNode(id: "genre-\(genre)", title: genre,
                       children: BrowseNode.sectioned(stations.indices.filter { stations[$0].genre == genre }.map(node), limit: limit))
        }
        let favourite = favourites.compactMap { id in stations.firstIndex { $0.id == id } }
        return [BrowseNode(id: "tab-stations", title: tabs[0], children: BrowseNode.sectioned(stations.indices.map(node), limit: limit)),
                BrowseNode(id: "tab-genres", title: tabs[1], children: BrowseNode.sectioned(genres, limit: limit)),
                BrowseNode(id: "tab-favourites", title: tabs[2], children: BrowseNode.sectioned(favourite.map(node), limit: limit))]
    }

    func childCount(at path: [Int]) -> Int? {
        path.isEmpty ? tree.count : BrowseNode.node(at: path, in: tree)?.children.count ?? 0
    }

    func item(at path: [Int]) -> DeckContentItem? {
        guard let node = BrowseNode.node(at: path, in: tree) else { return nil }
        if let index = node.entry { return contentItem(stations[index]) }
        return DeckContentItem(id: node.id, title: node.title, subtitle: node.subtitle, container: true)
    }

    func play(at path: [Int], token: UInt64) {
        guard let item = item(at: path), item.playable else {
            try? host.completeContent(token, .invalid)
            return
        }
        do {
            try start(item: item.id)
            try host.completeContent(token)
        } catch {
            try? host.completeContent(token, .state)
        }
    }

    private func contentItem(_ station: Station) -> DeckContentItem {
        let artwork = station.imageURL.map { $0.contains("://") ? $0 : "file://\($0)" }
        return DeckContentItem(id: station.id, title: station.name, subtitle: station.desc, artworkURI: artwork, playable: true, streaming: true)
    }
}
