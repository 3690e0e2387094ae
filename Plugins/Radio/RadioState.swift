import DeckSDK
import FoundationEssentials
import MediaPlayback

/// What Radio keeps in its data folder: favourites, the last station, each station's loudness.
struct RadioState: Codable, Equatable {
    var favourites: [String] = []
    var last: String?
    /// The adapting loudness estimate of each station (LUFS), the start of the next listen.
    var loudness: [String: Double] = [:]

    static func load(_ path: String, host: DeckHost) -> RadioState? {
        SavedState.load(RadioState.self, from: path, maxBytes: 1 << 20, host: host)
    }

    var encoded: [UInt8] { (try? Array(JSONEncoder().encode(self))) ?? [] }
}

/// The integrator's settings for Radio (`appSettings."org.deck.radio"`).
struct RadioSettings {
    /// The station list's path (default: stations.json in the data folder, else the bundle's).
    var stations: String?
    /// The loudness every station is brought to, in LUFS.
    var loudnessTarget = LoudnessNormalizer.defaultTarget
    /// What was wrong with them, for the log.
    var problems: [String]

    init(json: String) {
        var settings = AppSettings(json: json, known: ["stations", "loudnessTarget"])
        stations = settings.string("stations", meaning: "the station list's path")
        loudnessTarget = settings.number("loudnessTarget", in: -40...(-5), unit: "LUFS") ?? loudnessTarget
        problems = settings.problems
    }
}
