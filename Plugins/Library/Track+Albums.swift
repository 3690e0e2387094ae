extension Track {
    /// Tracks whose files name no album artist, grouped as albums by their folder: a folder's
    /// album of one name by several artists is one album, under the artist of most of its tracks
    /// (an album with one "A feat. B" stays A's), else under Various Artists (a soundtrack, a
    /// mixtape). Album artists the files name, and compilations, stay as they are.
    static func groupingAlbumsByFolder(_ tracks: [Track]) -> [Track] {
        var tracks = tracks
        var albums: [String: [Int]] = [:]
        for index in tracks.indices {
            tracks[index].albumArtistTagged = tracks[index].namesItsAlbumArtist
            guard tracks[index].albumArtistTagged == false else { continue }
            tracks[index].albumArtist = tracks[index].artist
            if tracks[index].album != Track.unknownAlbum { albums[tracks[index].folder + "\u{0}" + tracks[index].album, default: []].append(index) }
        }
        for members in albums.values {
            let counts = Dictionary(members.map { (tracks[$0].artist, 1) }, uniquingKeysWith: +)
            guard counts.count > 1, let (most, count) = counts.max(by: { $0.value == $1.value ? $0.key > $1.key : $0.value < $1.value }) else {
                continue
            }
            let albumArtist = count * 2 > members.count ? most : Track.variousArtists
            for index in members { tracks[index].albumArtist = albumArtist }
        }
        return tracks
    }

    /// Whether the album artist came from the file (its tag, or a compilation's Various Artists).
    /// In an index saved before this was kept, one that differs from the artist did.
    var namesItsAlbumArtist: Bool { albumArtistTagged ?? (albumArtist != artist) }
}
