/// A value plugin.h numbers from 0 in the order its Swift cases are declared.
public protocol NumberedInABI: CaseIterable, Equatable {}

extension NumberedInABI {
    /// Its number in plugin.h.
    public var code: Int32 { Int32(Array(Self.allCases).firstIndex(of: self)!) }

    /// The value behind a number of plugin.h; nil for any other number.
    public init?(code: Int32) {
        let all = Array(Self.allCases)
        guard code >= 0, Int(code) < all.count else { return nil }
        self = all[Int(code)]
    }
}

/// Where the owner's playback is, as MPNowPlayingInfoCenter's playbackState and MPRIS's
/// PlaybackStatus say it (`interrupted`: paused by the session, e.g. a call): `deck_playback_state_t`.
public enum PlaybackState: String, Sendable, NumberedInABI {
    case stopped, playing, paused, interrupted
}

/// What kind of media plays (MPNowPlayingInfoMediaType, widened as Android's MediaSession is):
/// `deck_media_type_t`.
public enum MediaType: String, Sendable, NumberedInABI {
    case audio, podcast, audiobook, radio
}

/// Shuffle as MPRemoteCommandCenter's changeShuffleModeCommand knows it (`collections` left out:
/// a queue here holds items, not albums): `deck_shuffle_mode_t`.
public enum ShuffleMode: String, Sendable, NumberedInABI {
    case off, items
}

/// `deck_repeat_mode_t`.
public enum RepeatMode: String, Sendable, NumberedInABI {
    case off, one, all
}
