import DeckBase

/// Where each plugin's code runs, from the policy file's `"isolation"`:
///
///     "isolation": "process"
///     "isolation": {"default": "process", "plugins": {"com.example.trusted": "inline"}}
///
/// A plugin not named gets the default, `process`: third-party code cannot take the runtime or
/// another app's audio down. `inline` saves a process and a frame of latency per plugin, for code
/// the integrator ships and trusts.
public struct IsolationPolicy: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        /// In a `deck-plugin-host` child process of its own.
        case process
        /// In the runtime's process, called directly.
        case inline
    }

    public var defaultMode: Mode
    public var pluginModes: [String: Mode]

    public init(defaultMode: Mode = .process, pluginModes: [String: Mode] = [:]) {
        self.defaultMode = defaultMode
        self.pluginModes = pluginModes
    }

    public func mode(for id: String) -> Mode { pluginModes[id] ?? defaultMode }

    init(json: JSONValue) throws(PolicyError) {
        func mode(_ value: JSONValue, at path: String) throws(PolicyError) -> Mode {
            guard let name = value.stringValue, let mode = Mode(rawValue: name) else {
                throw .invalid("\"\(path)\" must be \"process\" or \"inline\", got \(PrintableText.excerpt(value.encoded()))")
            }
            return mode
        }
        self.init()
        switch json {
        case .string: defaultMode = try mode(json, at: "isolation")
        case .object(let members):
            for key in members.keys where key != "default" && key != "plugins" {
                throw .invalid("unknown key \"isolation.\(key)\" (expected \"default\" and \"plugins\")")
            }
            if let value = members["default"] { defaultMode = try mode(value, at: "isolation.default") }
            if let plugins = members["plugins"] {
                guard case .object(let entries) = plugins else { throw .invalid("\"isolation.plugins\" must be an object of plugin id to mode") }
                for (id, value) in entries { pluginModes[try EntitlementPolicy.pluginID(id, in: "isolation.plugins")] = try mode(value, at: "isolation.plugins.\(id)") }
            }
        default: throw .invalid("\"isolation\" must be \"process\", \"inline\" or an object with \"default\" and \"plugins\"")
        }
    }
}
