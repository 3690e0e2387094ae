import CDeckPlugin

/// The ABI's facts the runtime checks plugins against.
public enum PluginABI {
    public static let major = UInt32(DECK_ABI_VERSION_MAJOR)
    public static let minor = UInt32(DECK_ABI_VERSION_MINOR)
    public static let patch = UInt32(DECK_ABI_VERSION_PATCH)
    public static let entrySymbol = "deck_plugin_entry"
}
