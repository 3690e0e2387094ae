/// What the runtime is told at start: where plugins are, who may do what, how much to log, how
/// to encode and where to send the audio. Read from a config file (JSON) and overridden by
/// command-line flags or the embedder.
///
///     {"plugins": ["/usr/lib/deck/plugins"], "policy": "policy.json",
///      "logLevel": "info", "insecurePlugins": false,
///      "sinks": ["http://127.0.0.1:8000/stream.opus"],
///      "encoder": {"bitrate": 128000, "complexity": 10, "frameMs": 20, "application": "audio",
///                  "fec": false, "packetLoss": 0, "dtx": false},
///      "http": {"maxQueuedBytes": 1048576, "maxHeadBytes": 8192, "headTimeoutMs": 5000},
///      "audio": {"lateBoundMs": 50},
///      "session": {"duckDb": -14, "duckRampMs": 500, "restoreRampMs": 500, "idleTimeoutMs": 5000,
///                  "starvationMs": 30000, "alwaysActive": false, "matrix": {"call": {"navigation": "reject"}}}}
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
    public var audio = AudioConfiguration()
    public var httpLimits = HTTPStreamSink.Limits()
    public var session = SessionPolicy()

    public init() {}

    /// Applies a config file's settings; relative paths are taken from the file's folder.
    public mutating func apply(configFile path: String) throws(ConfigurationError) {
        let json: JSONValue
        do { json = try JSONValue.parse(contentsOfFile: path) } catch { throw .file(error) }
        guard case .object(let members) = json else { throw .invalid(path, "the config must be a JSON object, got \(json.typeName)") }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        func resolve(_ relative: String) -> String { relative.hasPrefix("/") ? relative : "\(folder)/\(relative)" }

        for (key, value) in members {
            switch key {
            case "plugins":
                guard let list = value.arrayValue, let dirs = Optional(list.compactMap(\.stringValue)), dirs.count == list.count else {
                    throw .invalid(path, "\"plugins\" must be an array of directory paths")
                }
                pluginDirectories = dirs.map(resolve)
            case "policy":
                guard let policyFile = value.stringValue else { throw .invalid(path, "\"policy\" must be a file path") }
                try loadPolicy(resolve(policyFile))
            case "logLevel":
                guard let name = value.stringValue, let level = LogLevel(name: name) else {
                    throw .invalid(path, "\"logLevel\" must be one of \(LogLevel.allCases.map(\.name).joined(separator: ", "))")
                }
                logLevel = level
            case "insecurePlugins":
                guard let flag = value.boolValue else { throw .invalid(path, "\"insecurePlugins\" must be true or false") }
                allowInsecurePlugins = flag
            case "sinks":
                guard let list = value.arrayValue, let uris = Optional(list.compactMap(\.stringValue)), uris.count == list.count else {
                    throw .invalid(path, "\"sinks\" must be an array of sink URIs")
                }
                sinks = uris.map { $0.hasPrefix("file:") && !$0.hasPrefix("file:/") ? "file:" + resolve(String($0.dropFirst(5))) : $0 }
            case "encoder":
                try applyEncoder(value, path: path)
            case "http":
                try applyHTTP(value, path: path)
            case "audio":
                guard case .object(let members) = value, members.count == 1, let bound = members["lateBoundMs"]?.intValue, bound > 0 else {
                    throw .invalid(path, "\"audio\" must be {\"lateBoundMs\": N} with N a positive number of milliseconds")
                }
                audio.lateBoundNanoseconds = Int(bound) * 1_000_000
            case "session":
                do { try session.apply(value) } catch { throw .invalid(path, error.description) }
            default:
                throw .invalid(path, "unknown key \"\(key)\" (known: plugins, policy, logLevel, insecurePlugins, sinks, encoder, http, audio, session)")
            }
        }
    }

    private mutating func applyEncoder(_ value: JSONValue, path: String) throws(ConfigurationError) {
        guard case .object(let members) = value else { throw .invalid(path, "\"encoder\" must be an object") }
        var encoder = audio.encoder
        for (key, value) in members {
            func integer() throws(ConfigurationError) -> Int {
                guard let number = value.intValue else { throw .invalid(path, "encoder.\(key) must be an integer") }
                return Int(number)
            }
            func flag() throws(ConfigurationError) -> Bool {
                guard let flag = value.boolValue else { throw .invalid(path, "encoder.\(key) must be true or false") }
                return flag
            }
            switch key {
            case "bitrate": encoder.bitrate = try integer()
            case "complexity": encoder.complexity = try integer()
            case "packetLoss": encoder.expectedPacketLoss = try integer()
            case "fec": encoder.inbandFEC = try flag()
            case "dtx": encoder.dtx = try flag()
            case "application":
                guard let name = value.stringValue, let application = EncoderSettings.Application(rawValue: name) else {
                    throw .invalid(path, AudioConfigurationError.application(value.stringValue ?? value.encoded()).description)
                }
                encoder.application = application
            case "frameMs":
                let milliseconds: Double
                switch value {
                case .int(let number): milliseconds = Double(number)
                case .double(let number): milliseconds = number
                default: throw .invalid(path, "encoder.frameMs must be a number")
                }
                do { audio.frameSize = try FrameSize(milliseconds: milliseconds) } catch { throw .invalid(path, error.description) }
            default:
                throw .invalid(path, "unknown key \"encoder.\(key)\" (known: bitrate, complexity, frameMs, application, fec, packetLoss, dtx)")
            }
        }
        do { try encoder.validate() } catch { throw .invalid(path, error.description) }
        audio.encoder = encoder
    }

    private mutating func applyHTTP(_ value: JSONValue, path: String) throws(ConfigurationError) {
        guard case .object(let members) = value else { throw .invalid(path, "\"http\" must be an object") }
        for (key, value) in members {
            guard let number = value.intValue, number > 0 else { throw .invalid(path, "http.\(key) must be a positive integer") }
            switch key {
            case "maxQueuedBytes": httpLimits.maxQueuedBytes = Int(number)
            case "maxHeadBytes": httpLimits.maxHeadBytes = Int(number)
            case "headTimeoutMs": httpLimits.headTimeoutMilliseconds = UInt64(number)
            default: throw .invalid(path, "unknown key \"http.\(key)\" (known: maxQueuedBytes, maxHeadBytes, headTimeoutMs)")
            }
        }
    }

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
