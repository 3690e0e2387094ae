import DeckSDK

/// The now-playing artwork the runtime refused last, so it is not offered again at every publish.
public struct RefusedArtwork {
    private var bytes: [UInt8]?

    public init() {}

    /// `artwork`, unless it is the one refused.
    func offered(_ artwork: [UInt8]?) -> [UInt8]? { artwork == bytes ? nil : artwork }

    mutating func refuse(_ artwork: [UInt8]) { bytes = artwork }
}

extension DeckHost {
    /// Publishes `info`. Artwork the runtime refuses (over `nowPlaying.maxArtworkBytes` or
    /// `maxArtworkPixels`, or not PNG or JPEG) costs only the picture, not the title, queue and commands: `info` goes without it,
    /// the refusal is logged once, and `refused` keeps that artwork from being offered again.
    public func setNowPlaying(_ info: NowPlaying, refused: inout RefusedArtwork) throws(DeckError) {
        var info = info
        info.artwork = refused.offered(info.artwork)
        guard let artwork = info.artwork else { return try setNowPlaying(info) }
        do {
            try setNowPlaying(info)
        } catch {
            info.artwork = nil
            try setNowPlaying(info)  // this one failing is not the picture's fault: it is thrown
            refused.refuse(artwork)
            log(.warning, "now playing shows no picture: \(error.message)")
        }
    }
}
