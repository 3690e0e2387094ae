import FoundationEssentials
import MediaPlayback

/// A station in SwiftRadio's shape: name, stream URL, image, short and long description (and,
/// beyond SwiftRadio, an optional genre).
struct Station: Codable, Equatable, Sendable {
    var name: String
    var streamURL: String
    var imageURL: String?
    var desc: String?
    var longDesc: String?
    var genre: String?

    /// Stable across reloads: the stream's address names the station.
    var id: String { streamURL }
}

/// The station list: `{"station": [Station…]}` as SwiftRadio's stations.json.
struct StationList: Codable, Equatable, Sendable {
    var station: [Station]

    static let maxBytes = 1 << 20
    static let maxStations = 1000

    /// Reads and checks the list at `path`; relative image paths are resolved beside it.
    static func load(_ path: String) throws(StationListError) -> StationList {
        guard let bytes = FileBytes.read(path, maxBytes: maxBytes) else { throw .unreadable(path) }
        var list: StationList
        do {
            list = try JSONDecoder().decode(StationList.self, from: Data(bytes))
        } catch {
            throw .malformed(path, "\(error)")
        }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        list.station = list.station.filter { !$0.name.isEmpty && !$0.streamURL.isEmpty }.prefix(maxStations).map { station in
            var station = station
            if let image = station.imageURL, !image.isEmpty, !image.contains("://"), !image.hasPrefix("/") {
                station.imageURL = "\(folder)/\(image)"
            }
            return station
        }
        return list
    }

    /// The genres, in the order they first appear.
    var genres: [String] {
        var seen: [String] = []
        for genre in station.compactMap(\.genre) where !seen.contains(genre) { seen.append(genre) }
        return seen
    }
}

enum StationListError: Error, CustomStringConvertible {
    case unreadable(String)
    case malformed(String, String)

    var description: String {
        switch self {
        case .unreadable(let path):
            "cannot read the station list \(path): missing, over 1 MiB, or hidden by the sandbox (a plugin in a host process reads its bundle, "
                + "its data folder and, holding media, the media folders)"
        case .malformed(let path, let reason): "the station list \(path) is not {\"station\": [{\"name\", \"streamURL\", …}]}: \(reason)"
        }
    }
}
