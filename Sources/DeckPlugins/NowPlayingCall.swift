import DeckNowPlaying

/// A plugin's `deck.now-playing` host call, read from its C arguments into checked Swift values.
package enum NowPlayingCall: Sendable {
    /// The position fields of the info are the owner's "now"; the runtime anchors them.
    case setInfo(NowPlayingInfo, artwork: [UInt8]?)
    case setPosition(elapsed: Double, rate: Double, state: PlaybackState)
    case clear
    case setQueue([QueueItem], current: Int?)
    case setQueueIndex(Int?)
    case setModes(ShuffleMode, RepeatMode)
    case setCommands(Set<RemoteCommand.Kind>, skipForward: Double, skipBackward: Double)
    case complete(token: UInt64, CommandResult)
}
