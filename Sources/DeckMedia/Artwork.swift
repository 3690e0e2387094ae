/// Image bytes an app handed over (now playing's artwork, a template's image): PNG or JPEG only,
/// checked by their signature.
public struct Artwork: Equatable, Sendable {
    public let id: String
    public let mimeType: String
    public let bytes: [UInt8]

    /// Checks `bytes` against the limit (the config key `limitKey`) and the two formats a head unit draws.
    public init(id: String, bytes: [UInt8], maxBytes: Int, what: String = "artwork",
                limitKey: String = "nowPlaying.maxArtworkBytes") throws(ArtworkError) {
        guard bytes.count <= maxBytes else {
            throw .tooLarge("\(what) of \(bytes.count) bytes is over the limit of \(maxBytes) (\(limitKey))")
        }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            mimeType = "image/png"
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            mimeType = "image/jpeg"
        } else {
            throw .notAnImage("\(what) must be PNG or JPEG bytes (its first bytes are neither signature)")
        }
        self.id = id
        self.bytes = bytes
    }
}

/// Why bytes are not artwork: over the size limit, or neither PNG nor JPEG.
public enum ArtworkError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLarge(String)
    case notAnImage(String)

    public var description: String {
        switch self {
        case .tooLarge(let message), .notAnImage(let message): message
        }
    }
}
