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

    /// Reads and checks the list at `path`; relative image paths are resolved beside it. A station
    /// that is not one (a key missing or not text), has no name or stream, a stream URL that cannot
    /// name one, or the stream of one before it (the stream is its id), is left out and said in
    /// `skipped`, as are those past `maxStations`.
    static func load(_ path: String) throws(StationListError) -> (list: StationList, skipped: [String]) {
        guard let bytes = FileBytes.read(path, maxBytes: maxBytes) else { throw .unreadable(path) }
        let read: WrittenList
        do {
            read = try JSONDecoder().decode(WrittenList.self, from: Data(bytes))
        } catch {
            throw .malformed(path, "\(error)")
        }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        var list = StationList(station: []), skipped: [String] = [], streams = Set<String>()
        for (index, written) in read.station.enumerated() {
            guard case .success(var station) = written.station else {
                if case .failure(let error) = written.station { skipped.append("station \(index + 1) \(StationList.problem(error))") }
                continue
            }
            guard !station.name.allSatisfy(\.isWhitespace), !station.streamURL.allSatisfy(\.isWhitespace) else {
                skipped.append("station \(index + 1) has no name or no streamURL")
                continue
            }
            if let problem = station.streamURLProblem {
                skipped.append("\(station.name) \(problem)")
                continue
            }
            guard streams.insert(station.streamURL).inserted else {
                skipped.append("\(station.name) has the streamURL of a station before it")
                continue
            }
            guard list.station.count < maxStations else {
                skipped.append("the stations after the first \(maxStations)")
                break
            }
            if station.genre?.allSatisfy(\.isWhitespace) == true { station.genre = nil }  // no genre, not a genre without a name
            if let image = station.imageURL, !image.isEmpty, !image.contains("://"), !image.hasPrefix("/") {
                station.imageURL = "\(folder)/\(image)"
            }
            list.station.append(station)
        }
        return (list, skipped)
    }

    /// The list as written, each station read on its own: one that is not a station leaves the others.
    private struct WrittenList: Decodable {
        struct Written: Decodable {
            let station: Result<Station, any Error>
            init(from decoder: any Decoder) { station = Result { try Station(from: decoder) } }
        }
        var station: [Written]
    }

    /// Why a written station is not one, in the list's words.
    static func problem(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _)?: "has no \(key.stringValue)"
        case .valueNotFound(_, let context)?: "has no \(context.codingPath.last?.stringValue ?? "value")"
        case .typeMismatch(_, let context)?:
            context.codingPath.last.map { $0.intValue == nil ? "has a \($0.stringValue) that is not text" : "is not an object" } ?? "is not an object"
        default: "cannot be read: \(error)"
        }
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
            "cannot read the station list \(path): missing, not a regular file, over 1 MiB, or hidden by the sandbox (a plugin in a host process reads its bundle, "
                + "its data folder and, holding media, the media folders)"
        case .malformed(let path, let reason): "the station list \(path) is not {\"station\": [{\"name\", \"streamURL\", …}]}: \(reason)"
        }
    }
}
