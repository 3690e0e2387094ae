import Glibc

/// Storage the parser's stacks keep between parses on one thread (the loop parses every request):
/// a parse then starts on warm memory at its last size instead of three mallocs, and a large
/// document's stacks do not grow through malloc's large sizes again, each of which sweeps the
/// small chunks the last tree freed (`malloc_consolidate`).
enum ScratchCache {
    /// One slot per kind of stack: the elements', the members' and the keys'.
    enum Slot: Int {
        case elements, members, keys
    }

    /// Storage past this size is freed, not kept: a rare large document does not pin its peak.
    static let keptBytes = 64 << 10

    private struct Kept {
        var storage: UnsafeMutableRawPointer?
        var bytes: Int
    }

    /// The calling thread's slots (three `Kept`), freed with the thread.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { slots in
            guard let slots else { return }
            let kept = slots.assumingMemoryBound(to: Kept.self)
            for index in 0..<3 { free(kept[index].storage) }
            free(slots)
        }
        guard created == 0 else { fatalError("pthread_key_create: \(created)") }
        return key
    }()

    private static func slots(creating: Bool) -> UnsafeMutablePointer<Kept>? {
        if let slots = pthread_getspecific(key) { return slots.assumingMemoryBound(to: Kept.self) }
        guard creating, let raw = calloc(3, MemoryLayout<Kept>.stride) else { return nil }
        guard pthread_setspecific(key, raw) == 0 else {
            free(raw)
            return nil
        }
        return raw.assumingMemoryBound(to: Kept.self)
    }

    /// The storage kept in `slot` and its size in bytes, now the caller's; nil when none is kept.
    static func take(_ slot: Slot) -> (storage: UnsafeMutableRawPointer, bytes: Int)? {
        guard let kept = slots(creating: false), let storage = kept[slot.rawValue].storage else { return nil }
        defer { kept[slot.rawValue] = Kept(storage: nil, bytes: 0) }
        return (storage, kept[slot.rawValue].bytes)
    }

    /// Keeps `storage` (`bytes` long, holding no live values) for the thread's next parse, or
    /// frees it when the slot is taken or it is too large to keep.
    static func give(_ slot: Slot, _ storage: UnsafeMutableRawPointer, bytes: Int) {
        guard bytes <= keptBytes, let kept = slots(creating: true), kept[slot.rawValue].storage == nil else {
            free(storage)
            return
        }
        kept[slot.rawValue] = Kept(storage: storage, bytes: bytes)
    }
}
