import DeckAudio
import DeckBase
import DeckControl
import DeckIsolation
import DeckPlugins
import DeckSession
import DeckStream
import DeckUI
import Glibc

/// What the runtime is told at start: where plugins are, who may do what, how much to log, how
/// to encode and where to send the audio. Read from a config file (JSON) and overridden by
/// command-line flags or the embedder.
///
///     {"plugins": ["/usr/lib/deck/plugins"], "policy": "policy.json",
///      "logLevel": "info", "insecurePlugins": false,
///      "sinks": ["http://127.0.0.1:8000/stream.opus?name=Cabin"], "pins": {"navigation": "Cabin"},
///      "zones": [{"id": "front", "sinks": ["Cabin"], "sharedContexts": ["safety"]}, {"id": "rear", "sinks": ["Rear"]}],
///      "encoder": {"bitrate": 128000, "complexity": 10, "frameMs": 20, "application": "audio",
///                  "fec": false, "packetLoss": 0, "dtx": false},
///      "http": {"maxQueuedBytes": 1048576, "maxHeadBytes": 8192, "headTimeoutMs": 5000, "maxClients": 32},
///      "files": {"directory": "/var/lib/deck/recordings", "overwrite": false},
///      "control": {"maxMessageBytes": 1048576, "maxBatch": 100, ...},
///      "audio": {"lateBoundMs": 50, "packetBufferMs": 10000},
///      "session": {"duckDb": -14, "duckRampMs": 500, "restoreRampMs": 500, "idleTimeoutMs": 5000,
///                  "starvationMs": 30000, "alwaysActive": false, "matrix": {"call": {"navigation": "reject"}}},
///      "nowPlaying": {"commandTimeoutMs": 5000, "coalesceMs": 100, ...},
///      "state": {"path": "/var/lib/deck/state.json", "resumeOnStart": false}, "mpris": false, "watchPlugins": false,
///      "simulator": "127.0.0.1:8090",
///      "display": {"width": 800, "height": 480, "scale": 1, "driving": false}, "ui": {"handlerTimeoutMs": 10000},
///      "isolation": {"callTimeoutMs": 1000, "heartbeatTimeoutMs": 2000, "restartLimit": 3, ...},
///      "loopBudget": {"windowMs": 5000, "sharePercent": 20, "endAfterWindows": 3}}
public struct RuntimeConfiguration: Sendable, Equatable {
    public var pluginDirectories: [String] = []
    public var policy: EntitlementPolicy = .grantAll
    /// Where `policy` came from, for logs; nil when every declared entitlement is granted.
    public var policyPath: String?
    public var logLevel: LogLevel = .info
    /// Loads bundles that group/others can write or another user owns (development only).
    public var allowInsecurePlugins = false
    /// Sink URIs opened when the output starts.
    public var sinks: [String] = []
    /// Contexts whose audio stays on the sink of that name whatever the picker chooses for app audio.
    public var pins: [AudioContext: String] = [:]
    /// Sinks open at once, however added.
    public var maxSinks = 16
    /// The audio zones, the primary (driver's) first; empty: one zone, `ZoneSettings.primary`.
    public var zones: [ZoneSettings] = []
    /// Most zones the config may name.
    public var maxZones = ZoneSettings.maxZones
    public var audio = AudioConfiguration()
    public var httpLimits = HTTPStreamSink.Limits()
    /// Where file sinks added by clients may write, and whether any file sink may replace a file.
    public var files = FileOutputPolicy()
    public var control = ControlLimits()
    public var session = SessionPolicy()
    public var nowPlaying = NowPlayingLimits()
    /// Where the last source and the volumes are kept across restarts.
    public var state = StateSettings()
    /// Where each plugin gets a data folder of its own (`<dataDirectory>/<id>`); nil: none.
    public var dataDirectory: String?
    /// Each plugin's settings object, by plugin id (`host->settings`).
    public var appSettings: JSONObject = [:]
    /// Also serve now playing on the D-Bus session bus as an MPRIS player.
    public var mpris = false
    /// Reload a plugin when its bundle's manifest or library changes (for plugin authors).
    public var watchPlugins = false
    /// Where deckd serves the head-unit simulator (`HOST:PORT`, loopback only); nil: not served.
    public var simulator: String?
    /// The car's display at start (`display.set` changes it at run time).
    public var display = DisplayProfile()
    /// How long plugins' UI handlers may take, how large their images may be.
    public var ui = InterfaceSettings()
    /// How plugins in host processes are run, watched and restarted.
    public var isolation = IsolationSettings()
    public var loopBudget = LoopBudget()
    /// The config's `isolation.mode`, which replaces the policy's default once a whole config is read.
    var isolationMode: IsolationPolicy.Mode?

    public init() {}

    /// Applies a config file's settings; relative paths are taken from the file's folder.
    public mutating func apply(configFile path: String) throws(ConfigurationError) {
        let json: JSONValue
        do { json = try JSONValue.parse(contentsOfFile: path) } catch { throw .file(error) }
        try apply(json, from: path)
    }

    /// Applies a config document read from `path` (named in messages). Relative paths in it are
    /// taken from its `baseDirectory` when it has one (itself taken from the file's folder when
    /// relative), else from the file's folder (an embedded config's "folder" is the working directory),
    /// made absolute: a plugin host, running elsewhere, gets the same folders.
    public mutating func apply(_ json: JSONValue, from path: String) throws(ConfigurationError) {
        guard case .object(let members) = json else { throw .invalid(path, "the config must be a JSON object, got \(json.typeName)") }
        var folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        if !folder.isEmpty { folder = AbsolutePath.resolve(folder) }  // empty: the file is in "/"
        if let base = members["baseDirectory"] {
            guard let directory = base.stringValue, !directory.isEmpty else { throw .invalid(path, "\"baseDirectory\" must be a folder path") }
            folder = directory.hasPrefix("/") ? directory : "\(folder)/\(directory)"
        }
        let base = folder
        let resolve = { (relative: String) -> String in relative.hasPrefix("/") ? relative : "\(base)/\(relative)" }

        for (key, value) in members {
            switch key {
            case "baseDirectory": break  // read first: the other paths depend on it
            case "plugins":
                guard let list = value.arrayValue, let dirs = Optional(list.compactMap(\.stringValue)), dirs.count == list.count,
                      !dirs.contains("") else {
                    throw .invalid(path, "\"plugins\" must be an array of directory paths")
                }
                pluginDirectories = dirs.map(resolve)
            case "policy":
                guard let policyFile = value.stringValue, !policyFile.isEmpty else { throw .invalid(path, "\"policy\" must be a file path") }
                try loadPolicy(resolve(policyFile))
            case "logLevel":
                guard let name = value.stringValue, let level = LogLevel(name: name) else {
                    throw .invalid(path, "\"logLevel\" must be one of \(LogLevel.allCases.map(\.name).joined(separator: ", "))")
                }
                logLevel = level
            case "dataDirectory":
                guard let folder = value.stringValue, !folder.isEmpty else { throw .invalid(path, "\"dataDirectory\" must be a folder path") }
                dataDirectory = resolve(folder)
            case "appSettings":
                appSettings = try RuntimeConfiguration.appSettings(value, path: path)
            case "insecurePlugins":
                guard let flag = value.boolValue else { throw .invalid(path, "\"insecurePlugins\" must be true or false") }
                allowInsecurePlugins = flag
            case "sinks":
                guard let list = value.arrayValue, let uris = Optional(list.compactMap(\.stringValue)), uris.count == list.count else {
                    throw .invalid(path, "\"sinks\" must be an array of sink URIs")
                }
                sinks = uris.map(SinkURI.lowercasingScheme).map { uri in
                    let path = uri.dropFirst(5).prefix { $0 != "?" }  // `file:-` is standard output, not a file beside the config
                    return uri.hasPrefix("file:") && !path.hasPrefix("/") && path != SinkURI.standardOutput ? "file:" + resolve(String(uri.dropFirst(5))) : uri
                }
                for uri in sinks {
                    do { _ = try SinkLabel.parse(uri) } catch { throw .invalid(path, "sinks: \(error)") }
                }
            case "maxSinks":
                maxSinks = try Setting(value, "maxSinks", 1...256, path).integer()
            case "zones":
                try applyZones(value, path: path)
            case "maxZones":
                maxZones = try Setting(value, "maxZones", 1...ZoneSettings.maxZones, path).integer()
            case "session":
                do { try session.apply(value) } catch { throw .invalid(path, error.description) }
            case "mpris":
                guard let flag = value.boolValue else { throw .invalid(path, "\"mpris\" must be true or false") }
                mpris = flag
            case "watchPlugins":
                guard let flag = value.boolValue else { throw .invalid(path, "\"watchPlugins\" must be true or false") }
                watchPlugins = flag
            case "simulator":
                guard value != .null else { simulator = nil; continue }
                guard let text = value.stringValue, let address = try? SocketAddress(hostPort: text), address.isLoopback else {
                    throw .invalid(path, "\"simulator\" must be a loopback HOST:PORT (e.g. \"127.0.0.1:8090\") or null")
                }
                simulator = text
            case "pins":
                try applyPins(value, path: path)
            case "display":
                do { try display.apply(value) } catch { throw .invalid(path, error.description) }
            case _ where RuntimeConfiguration.sections.contains { $0.name == key }:
                try RuntimeConfiguration.sections.first { $0.name == key }!.apply(value, to: &self, file: path, resolve: resolve)
            default:
                throw .invalid(path, "unknown key \"\(key)\" (known: baseDirectory, plugins, policy, logLevel, dataDirectory, appSettings, insecurePlugins, "
                               + "sinks, maxSinks, zones, maxZones, pins, encoder, http, files, control, audio, session, nowPlaying, state, mpris, watchPlugins, simulator, display, ui, "
                               + "isolation, loopBudget)")
            }
        }
        // After the policy (keys come in any order): the config's mode replaces the policy's default.
        if let isolationMode { policy.isolation.defaultMode = isolationMode }
        try checkZones(path: path)
    }

    /// The zones the runtime runs: the configured ones, or the one primary zone.
    public var effectiveZones: [ZoneSettings] { zones.isEmpty ? [.primary] : zones }

    /// Reads the integrator's entitlement policy from `path`.
    public mutating func loadPolicy(_ path: String) throws(ConfigurationError) {
        do {
            policy = try EntitlementPolicy(json: JSONValue.parse(contentsOfFile: path))
            policyPath = path
        } catch let error as JSONFileError {
            throw .file(error)
        } catch let error as PolicyError {
            throw .invalid(path, error.description)
        } catch {
            throw .invalid(path, "\(error)")
        }
    }
}

/// One numeric setting being read: its full key, its range and unit, for a message a user can act on.
struct Setting {
    var value: JSONValue
    var key: String
    var range: ClosedRange<Int>
    var path: String
    var unit: String

    init(_ value: JSONValue, _ key: String, _ range: ClosedRange<Int>, _ path: String, unit: String = "") {
        self.value = value
        self.key = key
        self.range = range
        self.path = path
        self.unit = unit
    }

    /// The value as a whole number inside the range, or an error naming the key, the range and the unit.
    func integer() throws(ConfigurationError) -> Int {
        let bounds = "\(range.lowerBound) to \(range.upperBound)" + (unit.isEmpty ? "" : " \(unit)")
        guard let number = value.intValue else { throw .invalid(path, "\(key) must be a whole number from \(bounds), not \(PrintableText.excerpt(value.encoded()))") }
        guard range.contains(Int(clamping: number)) else { throw .invalid(path, "\(key) is \(number), out of range (\(bounds))") }
        return Int(number)
    }
}

/// A config or policy file that cannot be used; the message names the file and the key.
public enum ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case file(JSONFileError)
    case invalid(String, String)

    public var description: String {
        switch self {
        case .file(let error): error.description
        case .invalid(let path, let message): "\(path): \(message)"
        }
    }
}
