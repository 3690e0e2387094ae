import CDeckPlugin

/// What plays, as the plugin publishes it with `DeckHost.setNowPlaying`. Elapsed is "now"; the
/// runtime extrapolates it with the rate, so publish again only when it jumps.
public struct NowPlaying: Sendable {
    public var title: String?
    public var artists: [String] = []
    public var album: String?
    public var albumArtist: String?
    /// PNG or JPEG bytes.
    public var artwork: [UInt8]?
    public var artworkURI: String?
    /// Seconds; nil when unknown (always for live streams).
    public var duration: Double?
    public var elapsed = 0.0
    public var rate = 1.0
    public var isLive = false
    public var mediaType: MediaType = .audio
    public var state: PlaybackState = .playing
    public var chapterNumber: Int?
    public var chapterCount: Int?

    public init(title: String? = nil, artists: [String] = [], album: String? = nil, duration: Double? = nil,
                elapsed: Double = 0, state: PlaybackState = .playing) {
        self.title = title
        self.artists = artists
        self.album = album
        self.duration = duration
        self.elapsed = elapsed
        self.state = state
    }
}

/// One entry of the queue; `id` is the plugin's own, unique within the queue.
public struct QueueEntry: Sendable {
    public var id: String
    public var title: String?
    public var artist: String?
    public var duration: Double?

    public init(id: String, title: String? = nil, artist: String? = nil, duration: Double? = nil) {
        self.id = id
        self.title = title
        self.artist = artist
        self.duration = duration
    }
}

/// A plugin that owns now playing while it holds music focus, and carries out remote commands.
public protocol DeckNowPlayingPlugin: DeckPlugin {
    /// Carries out an enabled command. Return its result, or nil and call
    /// `host.completeCommand(token, …)` later (within 5 s by default). Loop thread.
    func handle(_ command: RemoteCommand, token: UInt64) -> CommandResult?
}
