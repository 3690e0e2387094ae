import DeckBase

/// One object of the config read through a table: each key with how its value is checked and
/// applied, so a section's keys, ranges and units, and the "unknown key" message listing them,
/// come from one list (as `ControlLimits.fields` does for `control`).
struct ConfigSection: Sendable {
    /// What applying a key may use: the file named in messages, the key's full name, and how a
    /// relative path is resolved.
    struct Context {
        let file: String
        let key: String
        let resolve: (String) -> String

        func invalid(_ message: String) -> ConfigurationError { .invalid(file, "\(key) \(message)") }
    }

    struct Key: Sendable {
        let name: String
        let apply: @Sendable (inout RuntimeConfiguration, JSONValue, Context) throws(ConfigurationError) -> Void

        /// A whole number in `range` (named with its unit in messages), converted by `set`.
        static func integer(_ name: String, _ range: ClosedRange<Int>, unit: String = "",
                            _ set: @escaping @Sendable (inout RuntimeConfiguration, Int) -> Void) -> Key {
            Key(name: name) { configuration, value, context throws(ConfigurationError) in
                set(&configuration, try Setting(value, context.key, range, context.file, unit: unit).integer())
            }
        }

        static func integer(_ name: String, _ path: WritableKeyPath<RuntimeConfiguration, Int> & Sendable, _ range: ClosedRange<Int>,
                            unit: String = "") -> Key {
            integer(name, range, unit: unit) { $0[keyPath: path] = $1 }
        }

        static func flag(_ name: String, _ path: WritableKeyPath<RuntimeConfiguration, Bool> & Sendable) -> Key {
            Key(name: name) { configuration, value, context throws(ConfigurationError) in
                guard let flag = value.boolValue else { throw context.invalid("must be true or false") }
                configuration[keyPath: path] = flag
            }
        }

        /// A path, resolved from the config's base folder.
        static func path(_ name: String, _ what: String, _ set: @escaping @Sendable (inout RuntimeConfiguration, String) -> Void) -> Key {
            Key(name: name) { configuration, value, context throws(ConfigurationError) in
                guard let text = value.stringValue, !text.isEmpty else { throw context.invalid("must be a \(what) path") }
                set(&configuration, context.resolve(text))
            }
        }
    }

    let name: String
    let keys: [Key]
    /// Checks across keys, once the section is read.
    let check: (@Sendable (RuntimeConfiguration, _ file: String) throws(ConfigurationError) -> Void)?

    init(_ name: String, _ keys: [Key], check: (@Sendable (RuntimeConfiguration, String) throws(ConfigurationError) -> Void)? = nil) {
        self.name = name
        self.keys = keys
        self.check = check
    }

    func apply(_ value: JSONValue, to configuration: inout RuntimeConfiguration, file: String,
               resolve: @escaping (String) -> String) throws(ConfigurationError) {
        guard case .object(let members) = value else { throw .invalid(file, "\"\(name)\" must be an object") }
        for (key, value) in members {
            guard let entry = keys.first(where: { $0.name == key }) else {
                throw .invalid(file, "unknown key \"\(name).\(key)\" (known: \(keys.map(\.name).joined(separator: ", ")))")
            }
            try entry.apply(&configuration, value, Context(file: file, key: "\(name).\(key)", resolve: resolve))
        }
        try check?(configuration, file)
    }
}
