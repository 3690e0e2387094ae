import DeckABI

/// Image bytes an app handed over (now playing's artwork, a template's image): PNG or JPEG only,
/// checked by their signature, and held to a size in bytes and, where the header gives it, in pixels.
public struct Artwork: Equatable, Sendable {
    public let id: String
    public let mimeType: String
    public let bytes: [UInt8]

    /// Checks `bytes` against the limits (the config keys `limitKeys` + `Bytes` and + `Pixels`) and
    /// the two formats a head unit draws. The pixels bound what the screen decodes: a PNG of one
    /// colour is a few KB at 20,000 pixels a side and over a GiB once drawn.
    public init(id: String, bytes: [UInt8], maxBytes: Int, maxPixels: Int, what: String = "artwork",
                limitKeys: String = "nowPlaying.maxArtwork") throws(ArtworkError) {
        guard bytes.count <= maxBytes else {
            throw .tooLarge("\(what) of \(bytes.count) bytes is over the limit of \(maxBytes) (\(limitKeys)Bytes)")
        }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            mimeType = "image/png"
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            mimeType = "image/jpeg"
        } else {
            throw .notAnImage("\(what) must be PNG or JPEG bytes (its first bytes are neither signature)")
        }
        if let size = ImageSize(header: bytes) {
            guard size.pixels > 0 else {
                throw .notAnImage("\(what)'s header gives \(size.width)×\(size.height) pixels: a picture has at least one")
            }
            guard size.pixels <= maxPixels else {
                throw .tooLarge("\(what) of \(size.width)×\(size.height) pixels is over the limit of \(maxPixels) pixels "
                                + "(\(limitKeys)Pixels): make it smaller first")
            }
        }
        self.id = id
        self.bytes = bytes
    }
}

/// Why bytes are not artwork: over a size limit, or neither PNG nor JPEG.
public enum ArtworkError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLarge(String)
    case notAnImage(String)

    public var description: String {
        switch self {
        case .tooLarge(let message), .notAnImage(let message): message
        }
    }
}
