/// What a plugin's sandbox lets it reach beyond its own bundle and data folder; declared in its
/// manifest, granted by the integrator's policy like entitlements, enforced by its host process.
public enum Permission: String, Sendable, CaseIterable, Comparable {
    /// Sockets to other machines and to local servers (a radio app's streams).
    case network
    /// Reading the integrator's media folders (`isolation.mediaFolders`; a library app's files).
    case media
    /// Unix sockets: this machine's local services (D-Bus, BlueZ, Avahi), which know a peer by its
    /// uid, on the runtime's uid the runtime's own.
    case services

    public static func < (a: Permission, b: Permission) -> Bool { a.rawValue < b.rawValue }

    /// "media, network" — sorted, for logs and messages.
    package static func list(_ set: Set<Permission>) -> String {
        set.isEmpty ? "none" : set.sorted().map(\.rawValue).joined(separator: ", ")
    }
}
