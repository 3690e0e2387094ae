import DeckBase
import DeckNowPlaying

/// Where the runtime keeps what survives a restart, and whether it plays again at start.
public struct StateSettings: Sendable, Equatable {
    /// The state file; nil keeps nothing.
    public var path: String?
    /// Resume the last source at start, as a head unit does at ignition.
    public var resumeOnStart = false
    /// How long after a change the file is written (changes in between fold into one write).
    public var saveDelayMilliseconds = 1_000

    public init() {}
}
