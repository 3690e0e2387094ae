import CDeckPlugin

/// Where playback is (`deck_playback_state_t`).
public enum PlaybackState: Int32, Sendable {
    case stopped = 0, playing, paused, interrupted
}

/// What kind of media plays (`deck_media_type_t`).
public enum MediaType: Int32, Sendable {
    case audio = 0, podcast, audiobook, radio
}

public enum ShuffleMode: Int32, Sendable {
    case off = 0, items
}

public enum RepeatMode: Int32, Sendable {
    case off = 0, one, all
}

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

/// A command from the car for the owner of now playing (`deck_command_t` with its argument).
public enum RemoteCommand: Sendable, Equatable {
    case play, pause, togglePlayPause, stop, next, previous
    case seek(Double)
    case skip(Double)
    case setRate(Double)
    case setShuffle(ShuffleMode)
    case setRepeat(RepeatMode)
    case like, dislike, bookmark

    /// The kinds, for `DeckHost.enableCommands`.
    public enum Kind: Int32, Sendable, CaseIterable {
        case play = 0, pause, togglePlayPause, stop, next, previous, seek, skip, setRate, setShuffle, setRepeat, like, dislike, bookmark
    }

    init?(_ raw: deck_remote_command_t) {
        guard let kind = Kind(rawValue: raw.command) else { return nil }
        switch kind {
        case .play: self = .play
        case .pause: self = .pause
        case .togglePlayPause: self = .togglePlayPause
        case .stop: self = .stop
        case .next: self = .next
        case .previous: self = .previous
        case .seek: self = .seek(raw.value)
        case .skip: self = .skip(raw.value)
        case .setRate: self = .setRate(raw.value)
        case .setShuffle: self = .setShuffle(ShuffleMode(rawValue: raw.mode) ?? .off)
        case .setRepeat: self = .setRepeat(RepeatMode(rawValue: raw.mode) ?? .off)
        case .like: self = .like
        case .dislike: self = .dislike
        case .bookmark: self = .bookmark
        }
    }
}

/// How a command ended (`deck_command_result_t`).
public enum CommandResult: Int32, Sendable {
    case success = 0, noSuchContent, noActionableNowPlayingItem, commandFailed
}

/// A plugin that owns now playing while it holds music focus, and carries out remote commands.
public protocol DeckNowPlayingPlugin: DeckPlugin {
    /// Carries out an enabled command. Return its result, or nil and call
    /// `host.completeCommand(token, …)` later (within 5 s by default). Loop thread.
    func handle(_ command: RemoteCommand, token: UInt64) -> CommandResult?
}
