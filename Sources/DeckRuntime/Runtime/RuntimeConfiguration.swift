/// What the runtime is told at start: where plugins are, who may do what, how much to log.
/// Read from a config file (JSON) and overridden by command-line flags or the embedder.
///
///     {"plugins": ["/usr/lib/deck/plugins"], "policy": "policy.json",
///      "logLevel": "info", "insecurePlugins": false}
public struct RuntimeConfiguration: Sendable, Equatable {
    public var pluginDirectories: [String] = []
    public var policy: EntitlementPolicy = .grantAll
    /// Where `policy` came from, for logs; nil when every declared entitlement is granted.
    public var policyPath: String?
    public var logLevel: LogLevel = .info
    /// Loads bundles that group/others can write or another user owns (development only).
    public var allowInsecurePlugins = false

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
            default:
                throw .invalid(path, "unknown key \"\(key)\" (known: plugins, policy, logLevel, insecurePlugins)")
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
