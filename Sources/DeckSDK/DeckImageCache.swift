import Glibc

/// The images a plugin's screens show, each handed over once: `id(_:_:)` names a picture by a key
/// of the plugin's own (a station, "cover") while a screen is built, and `sweep()` after the screen
/// is set removes the images that screen no longer named, so a cover per track does not pile up
/// on the host over a long drive. The host keeps equal bytes once, under one id: hand a screen's
/// images through one cache, not through it and `addImage` both. Loop thread.
public final class DeckImageCache {
    private let host: DeckHost
    /// Each key's bytes and their id; nil when the host refused them, with the removals counted
    /// then: a refused image is offered again only once one was removed (room made) or it changed.
    private var entries: [String: (bytes: [UInt8], id: UInt64?, removals: Int)] = [:]
    /// The keys named since the last sweep, and the ids to remove at the next: replaced by new
    /// bytes under their key since the last sweep, or still shown at it.
    private var named: Set<String> = []
    private var toRemove: Set<UInt64> = []
    private var removals = 0
    /// Set once a refusal is logged; cleared when an image is taken again.
    private var refusalLogged = false

    public init(host: DeckHost) { self.host = host }

    /// The image id of `bytes` under `key`, handed over when new or changed; nil when the host
    /// refuses it (logged once until one is taken again), without asking again at every screen.
    public func id(_ key: String, _ bytes: [UInt8]) -> UInt64? {
        named.insert(key)
        if let entry = entries[key] {
            let unchanged = DeckImageCache.equal(entry.bytes, bytes)
            if unchanged, entry.id != nil || entry.removals == removals { return entry.id }
            if let id = entry.id, !unchanged { toRemove.insert(id) }
            entries[key] = nil
        }
        // The same picture under another key (one logo for 50 stations) is the id the host gave it.
        if let shared = entries.values.first(where: { $0.id != nil && DeckImageCache.equal($0.bytes, bytes) }) {
            entries[key] = (bytes, shared.id, removals)
            return shared.id
        }
        do throws(DeckError) {
            let id = try host.addImage(bytes)
            entries[key] = (bytes, id, removals)
            refusalLogged = false
            return id
        } catch {
            guard error.code != .state else { return nil }  // not now (being unloaded): no fault of the image's
            entries[key] = (bytes, nil, removals)
            if !refusalLogged { host.log(.warning, "an image is not shown: \(error.message)") }
            refusalLogged = true
            return nil
        }
    }

    /// Whether two pictures hold the same bytes: the same buffer at once, else at memcmp's speed
    /// (a screen names each of its pictures at every refresh: a list of 300 stations, 60 MB).
    private static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                a.count == b.count && (a.count == 0 || a.baseAddress == b.baseAddress || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
            }
        }
    }

    /// Call once the screen built since the last sweep is set: the images it did not name are
    /// removed (an image kept under two keys stays while either is named). One still shown by a
    /// template the plugin kept is tried again at the next sweep.
    public func sweep() {
        let unnamed = entries.filter { !named.contains($0.key) }
        for key in unnamed.keys { entries[key] = nil }
        let inUse = Set(entries.values.compactMap(\.id))
        toRemove = toRemove.union(unnamed.values.compactMap(\.id)).subtracting(inUse).filter { id in
            do throws(DeckError) {
                try host.removeImage(id)
                removals += 1
            } catch {
                return error.code == .state
            }
            return false
        }
        named = []
    }
}
