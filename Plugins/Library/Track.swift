import FoundationEssentials
import MediaPlayback

/// One music file as the scan found it: its tags, length, loudness and the file's signature.
struct Track: Codable, Equatable, Sendable {
    /// "1 track", "12 tracks": a count as the screen and the browse tree show it.
    static func counted(_ count: Int) -> String { "\(count) track\(count == 1 ? "" : "s")" }

    var path: String
    var title: String
    var artist: String
    var album: String
    var albumArtist: String
    /// Whether the file named the album artist (nil in an index saved before this was kept).
    var albumArtistTagged: Bool?
    var trackNumber: Int?
    var discNumber: Int?
    var genre: String?
    var year: Int?
    var duration: Double?
    /// Integrated loudness (LUFS) of the track and of its album, from ReplayGain tags or measured.
    var loudness: Double?
    var albumLoudness: Double?
    /// Modification time and size when it was read: a changed file is read again.
    var signature: [Int]

    /// The folder it is in.
    var folder: String { FileBytes.folder(of: path) }

    /// The album's identity: an album is its title under its album artist.
    var albumKey: String { "\(albumArtist) – \(album)" }

    /// Reads `path`'s tags without decoding it.
    init(path: String, signature: [Int]) throws(MediaError) {
        let source = try MediaSource(url: path, decode: false)
        let tags = source.tags
        let name = path.split(separator: "/").last.map(String.init) ?? path
        self.path = path
        self.signature = signature
        title = tags["title"] ?? (name.contains(".") ? String(name[..<name.lastIndex(of: ".")!]) : name)
        artist = tags["artist"] ?? tags["album_artist"] ?? "Unknown Artist"
        album = tags["album"] ?? Track.unknownAlbum
        // A track marked part of a compilation (ID3's TCMP, MP4's cpil, a COMPILATION comment) is
        // under Various Artists when no album artist is named, not split by each track's artist.
        let named = tags["album_artist"] ?? tags["albumartist"] ?? (tags["compilation"] == "1" ? Track.variousArtists : nil)
        albumArtist = named ?? artist
        albumArtistTagged = named != nil
        trackNumber = Track.leadingNumber(tags["track"])
        discNumber = Track.leadingNumber(tags["disc"])
        genre = tags["genre"]
        year = Track.leadingNumber(tags["date"] ?? tags["year"]).flatMap { (1...9999).contains($0) ? $0 : nil }
        duration = source.duration
        // ReplayGain 2.0's gains are relative to −18 LUFS.
        loudness = Track.gain(tags["replaygain_track_gain"]).map { -18 - $0 }
        albumLoudness = Track.gain(tags["replaygain_album_gain"]).map { -18 - $0 }
    }

    /// Whether a scan could have made it: an absolute path spelt one way, texts to show, numbers
    /// in the ranges `init` keeps them to. A saved index is checked with it before it is trusted.
    var isPlausible: Bool {
        func within<T: Comparable>(_ value: T?, _ range: ClosedRange<T>) -> Bool { value.map(range.contains) ?? true }
        return path.hasPrefix("/") && FileBytes.normalized(path) == path && ![title, artist, album, albumArtist].contains("")
            && within(trackNumber, 1...99_999) && within(discNumber, 1...99_999) && within(year, 1...9999)
            && within(duration, 0...MediaSource.positions.upperBound) && within(loudness, -78...42) && within(albumLoudness, -78...42)
            && signature.count == 3
    }

    static let unknownAlbum = "Unknown Album"
    static let variousArtists = "Various Artists"

    /// "3/12" → 3; nil for anything that is not a small positive number.
    static func leadingNumber(_ text: String?) -> Int? {
        guard let text else { return nil }
        let digits = text.prefix { $0.isASCII && $0.isNumber }.prefix(5)
        guard let value = Int(digits), value > 0 else { return nil }
        return value
    }

    /// "-6.20 dB" → −6.2; nil unless within ±60 dB.
    static func gain(_ text: String?) -> Double? {
        guard let text else { return nil }
        let number = text.split(separator: " ").first.map(String.init) ?? ""
        guard let value = Double(number), value.isFinite, (-60.0...60).contains(value) else { return nil }
        return value
    }

    /// File names played as music (what FFmpeg reads; others are not looked at).
    static let extensions: Set<String> = ["flac", "ogg", "oga", "opus", "mp3", "m4a", "aac", "mp4", "wav", "wv", "ape", "mka", "aiff", "aif"]

    static func isMusic(_ name: String) -> Bool {
        guard let dot = name.lastIndex(of: ".") else { return false }
        return extensions.contains(name[name.index(after: dot)...].lowercased())
    }
}
