/// The images a plugin's screens show, each handed over once: `id(_:_:)` names a picture by a key
/// of the plugin's own (a station, "cover") while a screen is built, and `sweep()` after the screen
/// is set removes the images that screen no longer named, so a cover per track does not pile up
/// on the host over a long drive. The host keeps equal bytes once, under one id: hand a screen's
/// images through one cache, not through it and `addImage` both. Loop thread.
public final class DeckImageCache {
    private let host: DeckHost
    private var entries: [String: (bytes: [UInt8], id: UInt64)] = [:]
    /// The keys named since the last sweep, and the ids to remove at the next: replaced by new
    /// bytes under their key since the last sweep, or still shown at it.
    private var named: Set<String> = []
    private var toRemove: Set<UInt64> = []

    public init(host: DeckHost) { self.host = host }

    /// The image id of `bytes` under `key`, handed over when new or changed; nil when the host refuses it.
    public func id(_ key: String, _ bytes: [UInt8]) -> UInt64? {
        named.insert(key)
        if let entry = entries[key] {
            if entry.bytes == bytes { return entry.id }
            toRemove.insert(entry.id)
            entries[key] = nil
        }
        guard let id = try? host.addImage(bytes) else { return nil }
        entries[key] = (bytes, id)
        return id
    }

    /// Call once the screen built since the last sweep is set: the images it did not name are
    /// removed (an image kept under two keys stays while either is named). One still shown by a
    /// template the plugin kept is tried again at the next sweep.
    public func sweep() {
        let unnamed = entries.filter { !named.contains($0.key) }
        for key in unnamed.keys { entries[key] = nil }
        let inUse = Set(entries.values.map(\.id))
        toRemove = toRemove.union(unnamed.values.map(\.id)).subtracting(inUse).filter { id in
            do throws(DeckError) { try host.removeImage(id) } catch { return error.code == .state }
            return false
        }
        named = []
    }
}
