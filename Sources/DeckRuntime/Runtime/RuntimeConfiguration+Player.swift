import DeckBase
import DeckNowPlaying

/// Where the runtime keeps what survives a restart, and whether it plays again at start.
public struct StateSettings: Sendable, Equatable {
    /// The state file; nil keeps nothing.
    public var path: String?
    /// Resume the last source at start, as a head unit does at ignition.
    public var resumeOnStart = false
    /// How long after a change the file is written (changes in between fold into one write).
    public var saveDelayMilliseconds = 1_000

    public init() {}
}

extension RuntimeConfiguration {
    mutating func applyNowPlaying(_ value: JSONValue, path: String) throws(ConfigurationError) {
        guard case .object(let members) = value else { throw .invalid(path, "\"nowPlaying\" must be an object") }
        for (key, value) in members {
            switch key {
            case "maxStringBytes":
                nowPlaying.maxStringBytes = try Setting(value, "nowPlaying.maxStringBytes", 64...65_536, path, unit: "bytes").integer()
            case "maxArtworkBytes":
                nowPlaying.maxArtworkBytes = try Setting(value, "nowPlaying.maxArtworkBytes", 1_024...(16 << 20), path, unit: "bytes").integer()
            case "maxQueueItems":
                nowPlaying.maxQueueItems = try Setting(value, "nowPlaying.maxQueueItems", 1...100_000, path).integer()
            case "commandTimeoutMs":
                nowPlaying.commandTimeoutMilliseconds = try Setting(value, "nowPlaying.commandTimeoutMs", 10...60_000, path, unit: "ms").integer()
            case "coalesceMs":
                nowPlaying.coalesceMilliseconds = try Setting(value, "nowPlaying.coalesceMs", 0...10_000, path, unit: "ms").integer()
            default:
                throw .invalid(path, "unknown key \"nowPlaying.\(key)\" (known: maxStringBytes, maxArtworkBytes, maxQueueItems, "
                               + "commandTimeoutMs, coalesceMs)")
            }
        }
    }

    mutating func applyState(_ value: JSONValue, path: String, resolve: (String) -> String) throws(ConfigurationError) {
        guard case .object(let members) = value else { throw .invalid(path, "\"state\" must be an object") }
        for (key, value) in members {
            switch key {
            case "path":
                guard let file = value.stringValue, !file.isEmpty else { throw .invalid(path, "state.path must be a file path") }
                state.path = resolve(file)
            case "resumeOnStart":
                guard let flag = value.boolValue else { throw .invalid(path, "state.resumeOnStart must be true or false") }
                state.resumeOnStart = flag
            case "saveDelayMs":
                state.saveDelayMilliseconds = try Setting(value, "state.saveDelayMs", 0...60_000, path, unit: "ms").integer()
            default: throw .invalid(path, "unknown key \"state.\(key)\" (known: path, resumeOnStart, saveDelayMs)")
            }
        }
    }
}
