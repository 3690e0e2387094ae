import CDeckPlugin

/// A command from the car (steering wheel, HMI, MPRIS) for the owner of now playing, as
/// MPRemoteCommandCenter has them.
public enum RemoteCommand: Equatable, Sendable {
    case play, pause, togglePlayPause, stop, next, previous
    /// To an absolute position, in seconds.
    case seek(Double)
    /// Forward (positive) or back (negative) by seconds.
    case skip(Double)
    case setRate(Double)
    case setShuffle(ShuffleMode)
    case setRepeat(RepeatMode)
    case like, dislike, bookmark

    public var kind: Kind {
        switch self {
        case .play: .play
        case .pause: .pause
        case .togglePlayPause: .togglePlayPause
        case .stop: .stop
        case .next: .next
        case .previous: .previous
        case .seek: .seek
        case .skip: .skip
        case .setRate: .setRate
        case .setShuffle: .setShuffle
        case .setRepeat: .setRepeat
        case .like: .like
        case .dislike: .dislike
        case .bookmark: .bookmark
        }
    }

    /// The command's kind; the raw value is its number in deck/ext/now-playing.h.
    public enum Kind: Int, Sendable, CaseIterable {
        case play, pause, togglePlayPause, stop, next, previous, seek, skip, setRate, setShuffle, setRepeat, like, dislike, bookmark

        /// The case's name, as clients see it; from a table, since `"\(self)"` reflects on every
        /// call and `nowPlaying.get` names every enabled command.
        public var name: String { Kind.names[rawValue] }

        private static let names = ["play", "pause", "togglePlayPause", "stop", "next", "previous", "seek", "skip", "setRate",
                                    "setShuffle", "setRepeat", "like", "dislike", "bookmark"]
    }

    /// The command a plugin is handed: its kind with its value or mode.
    public var raw: deck_remote_command_t {
        var raw = deck_remote_command_t()
        raw.command = Int32(kind.rawValue)
        switch self {
        case .seek(let value), .skip(let value), .setRate(let value): raw.value = value
        case .setShuffle(let mode): raw.mode = mode.code
        case .setRepeat(let mode): raw.mode = mode.code
        default: break
        }
        return raw
    }

    /// The command a plugin was handed; nil for an unknown kind. An unknown mode reads as off.
    public init?(_ raw: deck_remote_command_t) {
        guard raw.command >= 0, let kind = Kind(rawValue: Int(raw.command)) else { return nil }
        self.init(kind, value: raw.value, shuffle: ShuffleMode(code: raw.mode) ?? .off, repeat: RepeatMode(code: raw.mode) ?? .off)
    }

    /// The command of `kind`, taking the value or mode its kind carries.
    public init(_ kind: Kind, value: Double = 0, shuffle: ShuffleMode = .off, repeat repeatMode: RepeatMode = .off) {
        switch kind {
        case .play: self = .play
        case .pause: self = .pause
        case .togglePlayPause: self = .togglePlayPause
        case .stop: self = .stop
        case .next: self = .next
        case .previous: self = .previous
        case .seek: self = .seek(value)
        case .skip: self = .skip(value)
        case .setRate: self = .setRate(value)
        case .setShuffle: self = .setShuffle(shuffle)
        case .setRepeat: self = .setRepeat(repeatMode)
        case .like: self = .like
        case .dislike: self = .dislike
        case .bookmark: self = .bookmark
        }
    }
}

/// How the owner answered a command (MPRemoteCommandHandlerStatus): `deck_command_result_t`.
public enum CommandResult: Int, Sendable, CaseIterable {
    case success = 0, noSuchContent, noActionableNowPlayingItem, commandFailed

    public var name: String { "\(self)" }
}
