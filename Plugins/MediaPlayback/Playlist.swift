import CFFmpeg

/// A station's `.pls` or `.m3u` playlist, fetched through FFmpeg's protocols (HTTP with its
/// redirects, or a file): the first stream it lists is what plays.
public enum Playlist {
    static let maxBytes = 64 * 1024

    /// True when `url` names a playlist by its extension.
    public static func isPlaylist(_ url: String) -> Bool {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init)?.lowercased() ?? ""
        return path.hasSuffix(".pls") || path.hasSuffix(".m3u")
    }

    /// The first entry of the playlist at `url`.
    public static func resolve(_ url: String, cancellation: Cancellation) throws(MediaError) -> String {
        let text = String(decoding: try RemoteBytes.fetch(url, maxBytes: maxBytes, cancellation: cancellation), as: UTF8.self)
        guard let first = firstEntry(in: text) else { throw .open(url, "the playlist lists no stream") }
        return try entry(first, of: url)
    }

    /// The first stream a playlist's text lists: an M3U line that is not a comment, or a PLS
    /// `FileN=` value. A PLS key is letters and digits before `=`; a URL's query has its `=` later.
    /// A byte order mark before the first line (Windows tools write one) is not part of it.
    static func firstEntry(in text: String) -> String? {
        for line in text.drop(while: { $0 == "\u{FEFF}" }).split(whereSeparator: \.isNewline).map({ String($0).trimmingSpaces }) {
            if line.hasPrefix("#") || line.isEmpty || line.hasPrefix("[") { continue }
            let key = line.prefix { $0 != "=" }
            guard key.count < line.count, !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return line }
            let value = String(line.dropFirst(key.count + 1)).trimmingSpaces
            if key.lowercased().hasPrefix("file"), !value.isEmpty { return value }  // an empty FileN= names nothing
        }
        return nil
    }

    /// What `entry` of the playlist at `playlist` names. A playlist from the network is the
    /// server's word, so it names network streams only (as mpv's safe playlists): a relative entry
    /// is resolved against the playlist's URL; a file, a pipe or another FFmpeg protocol is refused.
    static func entry(_ entry: String, of playlist: String) throws(MediaError) -> String {
        guard let base = origin(of: playlist) else { return entry }  // a local playlist: the integrator's file
        if origin(of: entry) != nil { return entry }
        // A network-path reference (RFC 3986, 4.2) keeps the playlist's scheme: `//cdn.example/live`.
        if entry.hasPrefix("//") { return String(base.prefix { $0 != ":" }) + ":" + entry }
        guard !entry.contains(":") else {
            throw .refused(playlist, "it lists \(entry.prefix(100)); a playlist from the network may name only http:// and https:// streams")
        }
        let playlistPath = playlist.dropFirst(base.count).prefix { $0 != "?" && $0 != "#" }
        let folder = playlistPath.lastIndex(of: "/").map { playlistPath[...$0] } ?? "/"
        return base + withoutDotSegments(entry.hasPrefix("/") ? entry : folder + entry)
    }

    /// `path` with its `.` and `..` segments applied (RFC 3986, 5.2.4): `/lists/../a` is `/a`.
    static func withoutDotSegments(_ path: String) -> String {
        var kept: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            switch segment {
            case ".": continue
            case "..": if kept.count > 1 { kept.removeLast() }
            default: kept.append(segment)
            }
        }
        return kept.joined(separator: "/")
    }

    /// `http://host:port` for an http(s) URL, else nil.
    static func origin(of url: String) -> String? {
        let lower = url.lowercased()
        guard let scheme = ["http://", "https://"].first(where: lower.hasPrefix) else { return nil }
        let rest = url.dropFirst(scheme.count)
        return String(url.prefix(scheme.count)) + rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    }
}
