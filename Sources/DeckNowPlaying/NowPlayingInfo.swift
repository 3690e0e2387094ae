import DeckBase

/// The metadata of what plays now. Elapsed time is an anchor — (elapsed, rate, monotonic time) —
/// that readers extrapolate, so an owner re-anchors only on a seek, a rate change or a new track.
public struct NowPlayingInfo: Equatable, Sendable {
    public var title: String?
    public var artists: [String] = []
    public var album: String?
    public var albumArtist: String?
    /// The id of artwork bytes kept by the center (`NowPlayingCenter.artwork(id:)`).
    public var artworkID: String?
    public var artworkURI: String?
    /// Seconds; nil when unknown, and always nil for a live stream.
    public var duration: Double?
    public var isLive = false
    public var mediaType: MediaType = .audio
    public var defaultRate = 1.0
    public var chapterNumber: Int?
    public var chapterCount: Int?
    public var playbackState: PlaybackState = .stopped
    /// Elapsed seconds at `anchor`, advancing at `rate` while playing.
    public private(set) var elapsed = 0.0
    public private(set) var rate = 0.0
    /// Loop time (milliseconds) of the last re-anchoring.
    public private(set) var anchor: UInt64 = 0

    public init() {}

    /// Re-anchors the position: a seek, a rate change, a pause, a new track.
    public mutating func setPosition(elapsed: Double, rate: Double, state: PlaybackState, now: UInt64) {
        self.elapsed = elapsed
        self.rate = rate
        playbackState = state
        anchor = now
    }

    /// The rate the position moves at: 0 unless playing.
    public var effectiveRate: Double { playbackState == .playing ? rate : 0 }

    /// Elapsed seconds at `now`, extrapolated from the anchor and kept within [0, duration].
    public func elapsed(at now: UInt64) -> Double {
        let moved = now > anchor ? Double(now - anchor) / 1000 * effectiveRate : 0
        var value = min(max(0, elapsed + moved), MediaTime.positions.upperBound)  // never past the longest position, however long it plays
        if let duration, !isLive { value = min(value, duration) }
        return value
    }
}
