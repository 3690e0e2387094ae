import DeckBase

extension RuntimeConfiguration {
    /// `"ui": {"handlerTimeoutMs": 10000, "maxImageBytes": 1048576}`.
    mutating func applyUI(_ value: JSONValue, path: String) throws(ConfigurationError) {
        guard case .object(let members) = value else { throw .invalid(path, "\"ui\" must be an object") }
        for (key, value) in members {
            switch key {
            case "handlerTimeoutMs":
                ui.handlerTimeoutMilliseconds = try Setting(value, "ui.handlerTimeoutMs", 10...120_000, path, unit: "ms").integer()
            case "maxImageBytes":
                ui.maxImageBytes = try Setting(value, "ui.maxImageBytes", 1_024...(16 << 20), path, unit: "bytes").integer()
            default: throw .invalid(path, "unknown key \"ui.\(key)\" (known: handlerTimeoutMs, maxImageBytes)")
            }
        }
    }
}
