import MediaPlayback

/// The tutorial's browse tree over the library: Artists › Albums › Tracks, Albums › Tracks,
/// Genres › Tracks and Folders, names in `NaturalOrder`; a level longer than `limit` is cut into
/// sections (A… – C…), so a head unit that shows `limit` rows reaches every track.
struct LibraryTree: Sendable {
    static let tabTitles = ["Artists", "Albums", "Genres", "Folders"]
    let tabs: [BrowseNode]

    init(tracks: [Track], folders: [String], limit: Int) {
        let limit = max(2, limit)
        func trackNode(_ index: Int) -> BrowseNode {
            let track = tracks[index]
            return BrowseNode(id: track.path, title: track.title, subtitle: "\(track.artist) · \(track.album)", entry: index)
        }
        func albumOrder(_ a: Int, _ b: Int) -> Bool {
            let x = tracks[a], y = tracks[b]
            let (p, q) = ((x.discNumber ?? 1, x.trackNumber ?? Int.max), (y.discNumber ?? 1, y.trackNumber ?? Int.max))
            if p != q { return p < q }
            return x.title == y.title ? NaturalOrder.less(x.path, y.path) : NaturalOrder.less(x.title, y.title)
        }
        let albums = Dictionary(grouping: tracks.indices) { tracks[$0].albumKey }
        func albumNode(_ key: String) -> BrowseNode {
            let members = albums[key]!.sorted(by: albumOrder)
            let first = tracks[members[0]]
            return BrowseNode(id: "album:\(key)", title: first.album, subtitle: first.albumArtist + (first.year.map { " · \($0)" } ?? ""),
                              children: BrowseNode.sectioned(members.map(trackNode), limit: limit))
        }
        let byArtist = Dictionary(grouping: albums.keys) { tracks[albums[$0]![0]].albumArtist }
        let artists = byArtist.keys.sorted(by: NaturalOrder.less).map { artist in
            let keys = byArtist[artist]!.sorted { a, b in
                let (x, y) = (tracks[albums[a]![0]].year ?? 0, tracks[albums[b]![0]].year ?? 0)
                return x == y ? NaturalOrder.less(a, b) : x < y
            }
            return BrowseNode(id: "artist:\(artist)", title: artist, subtitle: "\(keys.count) album\(keys.count == 1 ? "" : "s")",
                              children: BrowseNode.sectioned(keys.map(albumNode), limit: limit))
        }
        // Albums of one name by their artists (the key is the album under its artist).
        let albumList = albums.keys.sorted { a, b in
            let (x, y) = (tracks[albums[a]![0]].album, tracks[albums[b]![0]].album)
            return x == y ? NaturalOrder.less(a, b) : NaturalOrder.less(x, y)
        }.map(albumNode)
        let genres = Dictionary(grouping: tracks.indices.filter { tracks[$0].genre != nil }) { tracks[$0].genre! }
        let genreList = genres.keys.sorted(by: NaturalOrder.less).map { genre in
            let members = genres[genre]!.sorted { a, b in
                let (x, y) = (tracks[a].albumKey, tracks[b].albumKey)
                return x == y ? albumOrder(a, b) : NaturalOrder.less(x, y)
            }
            return BrowseNode(id: "genre:\(genre)", title: genre, children: BrowseNode.sectioned(members.map(trackNode), limit: limit))
        }
        tabs = [
            BrowseNode(id: "tab-artists", title: "Artists", children: BrowseNode.sectioned(artists, limit: limit)),
            BrowseNode(id: "tab-albums", title: "Albums", children: BrowseNode.sectioned(albumList, limit: limit)),
            BrowseNode(id: "tab-genres", title: "Genres", children: BrowseNode.sectioned(genreList, limit: limit)),
            BrowseNode(id: "tab-folders", title: "Folders", children: LibraryTree.folderNodes(tracks: tracks, roots: folders, limit: limit, trackNode: trackNode)),
        ]
    }

    /// The node at `path` (child indexes from the tabs).
    func node(at path: [Int]) -> BrowseNode? { BrowseNode.node(at: path, in: tabs) }

    /// The folders holding music, under each media folder (one media folder: its contents at the top).
    private static func folderNodes(tracks: [Track], roots: [String], limit: Int, trackNode: (Int) -> BrowseNode) -> [BrowseNode] {
        func build(_ folder: String, _ members: [Int]) -> BrowseNode {
            let prefix = folder + "/"
            let direct = members.filter { tracks[$0].folder == folder }.sorted { NaturalOrder.less(tracks[$0].path, tracks[$1].path) }
            let deeper = Dictionary(grouping: members.filter { tracks[$0].folder != folder && tracks[$0].path.hasPrefix(prefix) }) { index in
                folder + "/" + (tracks[index].path.dropFirst(prefix.count).split(separator: "/").first.map(String.init) ?? "")
            }
            let subfolders = deeper.keys.sorted(by: NaturalOrder.less).map { build($0, deeper[$0]!) }
            let name = folder.split(separator: "/").last.map(String.init) ?? folder
            return BrowseNode(id: "folder:\(folder)", title: name, subtitle: Track.counted(members.count),
                              children: BrowseNode.sectioned(subfolders + direct.map(trackNode), limit: limit))
        }
        let nodes = roots.map { root in build(root, tracks.indices.filter { tracks[$0].path.hasPrefix(root + "/") }) }
        return nodes.count == 1 ? nodes[0].children : BrowseNode.sectioned(nodes, limit: limit)
    }
}
