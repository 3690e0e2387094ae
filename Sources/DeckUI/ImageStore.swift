import DeckMedia
import Glibc

/// The images one app handed over: one copy of each distinct set of bytes, under the id it was
/// first given, kept until the app removes it or goes, within a budget for all of them together
/// (so an app adding a cover per track cannot fill the runtime's memory over a long drive).
struct ImageStore {
    /// The limits: one image's bytes (`ui.maxImageBytes`) and pixels (`ui.maxImagePixels`), and all
    /// of one app's bytes together (`ui.maxImageTotalBytes`).
    let maxBytes: Int
    let maxPixels: Int
    let maxTotalBytes: Int
    private var byID: [UInt64: Artwork] = [:]
    /// The ids kept, by a fingerprint of their bytes: equal bytes are found by comparing only the
    /// few with the same fingerprint (a `[UInt8]` key would hash byte by byte, 50× slower).
    private var idsByFingerprint: [UInt64: [UInt64]] = [:]
    /// The bytes of every image kept.
    private(set) var totalBytes = 0

    init(maxBytes: Int, maxPixels: Int, maxTotalBytes: Int) {
        self.maxBytes = maxBytes
        self.maxPixels = maxPixels
        self.maxTotalBytes = maxTotalBytes
    }

    subscript(id: UInt64) -> Artwork? { byID[id] }

    var count: Int { byID.count }

    /// The id of `bytes`: the one they were given if they are kept already, else a new one from `newID`.
    mutating func add(_ bytes: [UInt8], newID: () -> UInt64) throws(UIError) -> UInt64 {
        let fingerprint = ImageStore.fingerprint(bytes)
        if let id = idsByFingerprint[fingerprint]?.first(where: { byID[$0].map { ImageStore.equal($0.bytes, bytes) } ?? false }) { return id }
        let id = newID()
        let artwork: Artwork
        do {
            artwork = try Artwork(id: String(id), bytes: bytes, maxBytes: maxBytes, maxPixels: maxPixels, what: "an image",
                                  limitKeys: "ui.maxImage")
        } catch {
            if case .tooLarge(let message) = error { throw .limit(message) }
            throw .invalid(error.description)
        }
        guard bytes.count <= maxTotalBytes - totalBytes else {
            throw .limit("the app's images would take \(totalBytes + bytes.count) bytes, over the limit of \(maxTotalBytes) "
                         + "(ui.maxImageTotalBytes): remove_image() the ones no longer shown")
        }
        byID[id] = artwork
        idsByFingerprint[fingerprint, default: []].append(id)
        totalBytes += bytes.count
        return id
    }

    /// Forgets image `id`, if kept.
    mutating func remove(_ id: UInt64) {
        guard let artwork = byID.removeValue(forKey: id) else { return }
        let fingerprint = ImageStore.fingerprint(artwork.bytes)
        idsByFingerprint[fingerprint]?.removeAll { $0 == id }
        if idsByFingerprint[fingerprint]?.isEmpty == true { idsByFingerprint[fingerprint] = nil }
        totalBytes -= artwork.bytes.count
    }

    /// Whether two images hold the same bytes, at memcmp's speed.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0) }
        }
    }

    /// FNV-1a over 64-bit words (and the tail's bytes), seeded with the length: about 8 GB/s here.
    static func fingerprint(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { raw in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(raw.count)
            var offset = 0
            while offset + 8 <= raw.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x100_0000_01b3
                offset += 8
            }
            while offset < raw.count {
                hash = (hash ^ UInt64(raw[offset])) &* 0x100_0000_01b3
                offset += 1
            }
            return hash
        }
    }
}
