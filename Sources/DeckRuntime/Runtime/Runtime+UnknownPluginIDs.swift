import DeckBase

extension Runtime {
    /// A plugin id the policy or `appSettings` names that no plugin loaded at start has is most
    /// likely mistyped: that plugin would get the policy's default, or its own settings' defaults,
    /// without a word.
    func warnOfUnknownPluginIDs() {
        let loaded = Set(plugins.map(\.id))
        let named = [("the policy", configuration.policyPath == nil ? [] : configuration.policy.namedPluginIDs),
                     ("appSettings", configuration.appSettings.keys.sorted())]
        for (place, ids) in named {
            for id in ids where !loaded.contains(id) {
                logger.warning("plugins", "\(place) names \(id.isEmpty ? "\"\" (an empty id)" : PrintableText.excerpt(id)), which no plugin loaded at start has: "
                               + "is it mistyped? Loaded: \(PrintableText.excerpt(loaded.sorted().joined(separator: ", "), characters: 300))")
            }
        }
    }
}
