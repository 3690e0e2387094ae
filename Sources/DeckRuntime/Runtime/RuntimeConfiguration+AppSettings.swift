import DeckBase
import DeckPlugins

extension RuntimeConfiguration {
    /// The most one plugin's settings may take, as JSON text.
    static let maxAppSettingsBytes = 16 * 1024

    /// Reads `appSettings`: an object from plugin id to that plugin's settings object.
    static func appSettings(_ value: JSONValue, path: String) throws(ConfigurationError) -> JSONObject {
        guard case .object(let members) = value else {
            throw .invalid(path, "\"appSettings\" must be an object from plugin id to its settings object, got \(value.typeName)")
        }
        for (id, settings) in members {
            guard PluginManifest.isReverseDNS(id) else {
                throw .invalid(path, "appSettings: \"\(id)\" is not a plugin id (reverse-DNS, e.g. \"org.deck.radio\")")
            }
            guard case .object = settings else { throw .invalid(path, "appSettings.\(id) must be an object, got \(settings.typeName)") }
            let size = settings.encoded().utf8.count
            guard size <= maxAppSettingsBytes else {
                throw .invalid(path, "appSettings.\(id) takes \(size) bytes; at most \(maxAppSettingsBytes) are allowed")
            }
        }
        return members
    }
}
