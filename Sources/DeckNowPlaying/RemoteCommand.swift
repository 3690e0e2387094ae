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

        public var name: String { "\(self)" }
    }
}

/// How the owner answered a command (MPRemoteCommandHandlerStatus).
public enum CommandResult: Int, Sendable, CaseIterable {
    case success = 0, noSuchContent, noActionableNowPlayingItem, commandFailed

    public var name: String { "\(self)" }
}
