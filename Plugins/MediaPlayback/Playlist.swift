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
        for line in text.split(whereSeparator: \.isNewline).map({ String($0).trimmingSpaces }) {
            if line.hasPrefix("#") || line.isEmpty || line.hasPrefix("[") { continue }
            if line.lowercased().hasPrefix("file"), let equals = line.firstIndex(of: "=") {
                return String(line[line.index(after: equals)...]).trimmingSpaces
            }
            if !line.contains("=") { return line }
        }
        throw .open(url, "the playlist lists no stream")
    }

}
