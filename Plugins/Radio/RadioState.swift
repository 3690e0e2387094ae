import FoundationEssentials
import MediaPlayback

/// What Radio keeps in its data folder: favourites, the last station, each station's loudness.
struct RadioState: Codable, Equatable {
    var favourites: [String] = []
    var last: String?
    /// The adapting loudness estimate of each station (LUFS), the start of the next listen.
    var loudness: [String: Double] = [:]

    static func load(_ path: String) -> RadioState? {
        guard let bytes = FileBytes.read(path, maxBytes: 1 << 20) else { return nil }
        return try? JSONDecoder().decode(RadioState.self, from: Data(bytes))
    }

    var encoded: [UInt8] { (try? Array(JSONEncoder().encode(self))) ?? [] }
}

/// The integrator's settings for Radio (`appSettings."org.deck.radio"`).
struct RadioSettings: Decodable {
    /// The station list's path (default: stations.json in the data folder, else the bundle's).
    var stations: String?
    /// The loudness every station is brought to, in LUFS.
    var loudnessTarget = LoudnessNormalizer.defaultTarget

    enum CodingKeys: String, CodingKey { case stations, loudnessTarget }

    init(json: String) {
        if let decoded = try? JSONDecoder().decode(RadioSettings.self, from: Data(json.utf8)) { self = decoded }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        stations = try container.decodeIfPresent(String.self, forKey: .stations)
        if let target = try container.decodeIfPresent(Double.self, forKey: .loudnessTarget), (-40.0...(-5)).contains(target) {
            loudnessTarget = target
        }
    }
}
