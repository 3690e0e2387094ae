import DeckSDK
import FoundationEssentials
import MediaPlayback

/// Where the driver was, kept in the data folder: the queue (paths), the track and the position.
struct LibraryState: Codable, Equatable {
    var queue: [String] = []
    var index = 0
    var position = 0.0

    static func load(_ path: String, host: DeckHost) -> LibraryState? {
        guard var state = SavedState.load(LibraryState.self, from: path, maxBytes: 16 << 20, host: host) else { return nil }
        // Numbers from a file are checked before they index or seek anything.
        state.index = state.queue.indices.contains(state.index) ? state.index : 0
        state.position = state.position.isFinite && (0...1e9).contains(state.position) ? state.position : 0
        return state
    }

    /// Saves the state at `path`: nil, or why it could not.
    func write(to path: String) -> String? {
        guard let data = try? JSONEncoder().encode(self) else { return "it cannot be encoded" }
        return FileBytes.write(Array(data), to: path)
    }
}

/// The integrator's settings for Library (`appSettings."org.deck.library"`): the runtime adds
/// `mediaFolders`, the folders its sandbox lets it read.
struct LibrarySettings {
    var folders: [String] = []
    var loudnessTarget = LoudnessNormalizer.defaultTarget
    /// What was wrong with them, for the log.
    var problems: [String]

    init(json: String) {
        var settings = AppSettings(json: json, known: ["mediaFolders", "loudnessTarget"])
        folders = (settings.strings("mediaFolders", meaning: "a list of folder paths") ?? []).map(FileBytes.normalized)
        loudnessTarget = settings.number("loudnessTarget", in: -40...(-5), unit: "LUFS") ?? loudnessTarget
        problems = settings.problems
    }
}
