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
            try? host.reloadContent()
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

    // The browse tree: [tab], [tab, station] or [Genres, genre, station].

    func childCount(at path: [Int]) -> Int? {
        switch path.count {
        case 0: Radio.tabs.count
        case 1: path[0] == 1 ? genres.count : path[0] == 0 || path[0] == 2 ? stations(inTab: path[0]).count : 0
        case 2 where path[0] == 1 && genres.indices.contains(path[1]): stations(ofGenre: genres[path[1]]).count
        default: 0
        }
    }

    func item(at path: [Int]) -> DeckContentItem? {
        guard let tab = path.first, Radio.tabs.indices.contains(tab) else { return nil }
        if path.count == 1 { return DeckContentItem(id: "tab-\(Radio.tabs[tab].lowercased())", title: Radio.tabs[tab], container: true) }
        if tab == 1 {
            guard genres.indices.contains(path[1]) else { return nil }
            if path.count == 2 { return DeckContentItem(id: "genre-\(genres[path[1]])", title: genres[path[1]], container: true) }
            let list = stations(ofGenre: genres[path[1]])
            return path.count == 3 && list.indices.contains(path[2]) ? contentItem(list[path[2]]) : nil
        }
        let list = stations(inTab: tab)
        return path.count == 2 && list.indices.contains(path[1]) ? contentItem(list[path[1]]) : nil
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

    private var genres: [String] { StationList(station: stations).genres }

    private func stations(inTab tab: Int) -> [Station] {
        tab == 2 ? saved.favourites.compactMap { id in stations.first { $0.id == id } } : stations
    }

    private func stations(ofGenre genre: String) -> [Station] { stations.filter { $0.genre == genre } }

    private func contentItem(_ station: Station) -> DeckContentItem {
        let artwork = station.imageURL.map { $0.contains("://") ? $0 : "file://\($0)" }
        return DeckContentItem(id: station.id, title: station.name, subtitle: station.desc, artworkURI: artwork, playable: true, streaming: true)
    }
}
