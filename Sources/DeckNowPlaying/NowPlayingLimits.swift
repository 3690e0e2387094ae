/// The bounds the center holds owners to, and its timings; each is a config key under `nowPlaying`.
public struct NowPlayingLimits: Equatable, Sendable {
    /// Longest text field, in UTF-8 bytes.
    public var maxStringBytes = 1_024
    /// Largest artwork image, in bytes.
    public var maxArtworkBytes = 1 << 20
    /// Largest artwork, in pixels (4096 × 4096): what the screen must decode.
    public var maxArtworkPixels = 1 << 24
    public var maxQueueItems = 1_000
    /// How long an owner may take to answer a remote command before it is answered commandFailed.
    public var commandTimeoutMilliseconds = 5_000
    /// At most one `nowPlaying.changed` and one `queue.changed` per this many milliseconds.
    public var coalesceMilliseconds = 100

    public init() {}
}
