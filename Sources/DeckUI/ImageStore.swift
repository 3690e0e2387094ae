import DeckMedia

/// The images one app handed over: one copy of each distinct set of bytes, under the id it was
/// first given, kept until the app removes it or goes, within a budget for all of them together
/// (so an app adding a cover per track cannot fill the runtime's memory over a long drive).
struct ImageStore {
    /// The limits: one image (`ui.maxImageBytes`) and all of one app's together (`ui.maxImageTotalBytes`).
    let maxBytes: Int
    let maxTotalBytes: Int
    private var byID: [UInt64: Artwork] = [:]
    /// The same arrays as `byID`'s, so a key costs no second copy of the bytes.
    private var idByBytes: [[UInt8]: UInt64] = [:]
    /// The bytes of every image kept.
    private(set) var totalBytes = 0

    init(maxBytes: Int, maxTotalBytes: Int) {
        self.maxBytes = maxBytes
        self.maxTotalBytes = maxTotalBytes
    }

    subscript(id: UInt64) -> Artwork? { byID[id] }

    var count: Int { byID.count }

    /// The id of `bytes`: the one they were given if they are kept already, else a new one from `newID`.
    mutating func add(_ bytes: [UInt8], newID: () -> UInt64) throws(UIError) -> UInt64 {
        if let id = idByBytes[bytes] { return id }
        let id = newID()
        let artwork: Artwork
        do {
            artwork = try Artwork(id: String(id), bytes: bytes, maxBytes: maxBytes, what: "an image", limitKey: "ui.maxImageBytes")
        } catch {
            if case .tooLarge(let message) = error { throw .limit(message) }
            throw .invalid(error.description)
        }
        guard bytes.count <= maxTotalBytes - totalBytes else {
            throw .limit("the app's images would take \(totalBytes + bytes.count) bytes, over the limit of \(maxTotalBytes) "
                         + "(ui.maxImageTotalBytes): remove_image() the ones no longer shown")
        }
        byID[id] = artwork
        idByBytes[artwork.bytes] = id
        totalBytes += bytes.count
        return id
    }

    /// Forgets image `id`, if kept.
    mutating func remove(_ id: UInt64) {
        guard let artwork = byID.removeValue(forKey: id) else { return }
        idByBytes[artwork.bytes] = nil
        totalBytes -= artwork.bytes.count
    }
}
