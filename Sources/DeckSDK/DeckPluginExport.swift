import CDeckPlugin
import Glibc

/// Turns a `DeckPlugin` type into the C entry point. A Swift plugin library contains:
///
///     @_cdecl("deck_plugin_entry")
///     public func deckPluginEntry() -> UnsafeRawPointer { DeckPluginExport.entry(for: MyPlugin.self) }
public enum DeckPluginExport {
    /// The library's `deck_plugin_entry_t`, built once for `type`.
    public static func entry<Plugin: DeckPlugin>(for type: Plugin.Type) -> UnsafeRawPointer {
        if exported == nil { exported = type }
        return UnsafeRawPointer(entryStruct)
    }

    /// The plugin type this library exports. Set by the first `entry(for:)` call, which the host makes on
    /// its loop thread before any other call into the library, and never changed afterwards.
    nonisolated(unsafe) static var exported: (any DeckPlugin.Type)?

    /// The bundle the library was loaded from (its manifest, its data files), set before any
    /// instance is created.
    public private(set) nonisolated(unsafe) static var bundlePath: String?

    nonisolated(unsafe) private static let entryStruct: UnsafeMutablePointer<deck_plugin_entry_t> = {
        let entry = UnsafeMutablePointer<deck_plugin_entry_t>.allocate(capacity: 1)
        entry.initialize(to: deck_plugin_entry_t())
        entry.pointee.abi = deck_abi_version_t(major: UInt32(DECK_ABI_VERSION_MAJOR), minor: UInt32(DECK_ABI_VERSION_MINOR),
                                               patch: UInt32(DECK_ABI_VERSION_PATCH))
        entry.pointee.`init` = { path in
            bundlePath = path.map { String(cString: $0) }
            return exported != nil
        }
        entry.pointee.deinit = {}
        entry.pointee.create = { host, pluginID in
            guard let host, let type = exported else { return nil }
            if let pluginID, String(cString: pluginID) != type.descriptor.id {
                DeckHost(raw: host).log(.error, "asked to create \(String(cString: pluginID)), but this library is \(type.descriptor.id)")
                return nil
            }
            return PluginInstanceBox.create(type: type, host: DeckHost(raw: host))
        }
        return entry
    }()
}
