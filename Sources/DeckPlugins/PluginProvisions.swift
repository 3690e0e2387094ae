import DeckBase

/// What the integrator gives each plugin besides its grants: a data folder under `dataRoot`, the
/// media folders (to plugins holding `media`), its own settings object, and whether the output
/// freewheels.
package struct PluginProvisions: Sendable {
    /// Where each plugin gets a data folder of its own (`<dataRoot>/<id>`); nil: none.
    package var dataRoot: String?
    /// The folders a plugin holding `media` may read, offered in its settings as `mediaFolders`.
    package var mediaFolders: [String]
    /// Each plugin's settings object (the config's `appSettings`), by plugin id.
    package var settings: JSONObject
    /// The output renders as fast as it can rather than in real time (`is_freewheeling`).
    package var freewheeling: Bool

    package init(dataRoot: String? = nil, mediaFolders: [String] = [], settings: JSONObject = [:], freewheeling: Bool = false) {
        self.dataRoot = dataRoot
        self.mediaFolders = mediaFolders
        self.settings = settings
        self.freewheeling = freewheeling
    }

    /// The settings text handed to plugin `id` holding `permissions`.
    package func settingsText(for id: String, permissions: Set<Permission>) -> String {
        guard case .object(var members) = settings[id] ?? .object([:]) else { return "{}" }
        if permissions.contains(.media) {
            members["mediaFolders"] = .array(mediaFolders.map(JSONValue.string))
        } else {
            members["mediaFolders"] = nil
        }
        return JSONValue.object(members).encoded()
    }
}
