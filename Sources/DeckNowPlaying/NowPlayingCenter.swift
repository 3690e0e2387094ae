import DeckBase
import DeckMedia

/// The one now-playing state of the car: its owner (the app that holds, or last held, music
/// focus — the runtime says who), what plays, the queue, and the remote commands the owner
/// enabled. Only the owner changes it. Loop-thread-confined.
public final class NowPlayingCenter {
    /// What a change touched, so the runtime publishes only what moved.
    public struct Change: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let info = Change(rawValue: 1)
        public static let queue = Change(rawValue: 2)
        public static let owner: Change = [.info, .queue]
    }

    /// A position that differs from the extrapolated one by more than this is a seek, published.
    static let seekThreshold = 0.5

    public var limits: NowPlayingLimits
    public private(set) var owner: String?
    public private(set) var info = NowPlayingInfo()
    public private(set) var queue = PlayQueue()
    public private(set) var commands: Set<RemoteCommand.Kind> = []
    /// The owner's preferred skip intervals, in seconds.
    public private(set) var skipIntervals = (forward: 15.0, backward: 15.0)
    public private(set) var artwork: Artwork?
    private var nextQueueID: UInt64 = 0
    private var nextArtworkID = 0

    public init(limits: NowPlayingLimits = NowPlayingLimits()) { self.limits = limits }

    /// Hands the center to `newOwner`; what the previous owner published is cleared.
    @discardableResult
    public func transfer(to newOwner: String?) -> Change {
        guard newOwner != owner else { return [] }
        owner = newOwner
        reset()
        return .owner
    }

    /// Takes `other`'s owner and all it published (its app moved to this center's zone); `other`
    /// is left without an owner.
    @discardableResult
    public func take(from other: NowPlayingCenter) -> Change {
        (owner, info, queue, commands, skipIntervals, artwork) = (other.owner, other.info, other.queue, other.commands,
                                                                   other.skipIntervals, other.artwork)
        nextQueueID = max(nextQueueID, other.nextQueueID)
        nextArtworkID = max(nextArtworkID, other.nextArtworkID)
        other.transfer(to: nil)
        return .owner
    }

    private func reset() {
        info = NowPlayingInfo()
        queue = PlayQueue()
        commands = []
        skipIntervals = (15, 15)
        artwork = nil
    }

    /// Throws unless `caller` owns the center.
    public func check(_ caller: String) throws(NowPlayingError) {
        guard caller == owner else { throw .notOwner(caller: caller, owner: owner) }
    }

    /// Replaces the metadata (and the artwork, when bytes are given: the same bytes keep their id).
    public func setInfo(_ new: NowPlayingInfo, artworkBytes: [UInt8]?, from caller: String) throws(NowPlayingError) -> Change {
        try check(caller)
        try checkText(new)
        var new = new
        if new.isLive { new.duration = nil }
        if let bytes = artworkBytes, let current = artwork, current.bytes == bytes {
            new.artworkID = current.id  // the same picture again (a new title on a station) keeps its id: nothing to fetch
        } else if let bytes = artworkBytes {
            nextArtworkID += 1
            do {
                artwork = try Artwork(id: "art-\(nextArtworkID)", bytes: bytes, maxBytes: limits.maxArtworkBytes,
                                      maxPixels: limits.maxArtworkPixels)
            } catch {
                if case .tooLarge(let message) = error { throw .limit(message) }
                throw .invalid(error.description)
            }
            new.artworkID = artwork?.id
        } else {
            artwork = nil
            new.artworkID = nil
        }
        guard new != info else { return [] }
        info = new
        return .info
    }

    /// Re-anchors the position; a change within the extrapolation's reach is kept but not news.
    public func setPosition(elapsed: Double, rate: Double, state: PlaybackState, from caller: String,
                            now: UInt64) throws(NowPlayingError) -> Change {
        try check(caller)
        try NowPlayingCenter.checkPosition(elapsed: elapsed, rate: rate)
        let drift = abs(info.elapsed(at: now) - elapsed)
        let news = state != info.playbackState || rate != info.rate || drift > NowPlayingCenter.seekThreshold
        info.setPosition(elapsed: elapsed, rate: rate, state: state, now: now)
        return news ? .info : []
    }

    public func setQueue(_ items: [QueueItem], current: Int?, from caller: String) throws(NowPlayingError) -> Change {
        try check(caller)
        for item in items {
            try checkText(item.key, "queue item id")
            if item.key.isEmpty { throw .invalid("a queue item's id is empty") }
            try checkText(item.title, "queue item title")
            try checkText(item.artist, "queue item artist")
            try checkText(item.artworkURI, "queue item artwork URI")
            if let duration = item.duration, MediaTime(seconds: duration) == nil {
                throw .invalid("queue item \"\(item.key)\": duration must be a number of seconds from 0 to \(MediaTime.limit)")
            }
        }
        var updated = queue
        try updated.replace(with: items, current: current, maxItems: limits.maxQueueItems, nextID: &nextQueueID)
        return commit(updated)
    }

    public func selectQueueItem(_ index: Int?, from caller: String) throws(NowPlayingError) -> Change {
        try check(caller)
        var updated = queue
        try updated.select(index)
        return commit(updated)
    }

    public func setModes(shuffle: ShuffleMode, repeatMode: RepeatMode, from caller: String) throws(NowPlayingError) -> Change {
        try check(caller)
        var updated = queue
        updated.shuffle = shuffle
        updated.repeatMode = repeatMode
        return commit(updated)
    }

    /// The commands the owner carries out; others are refused before they reach it.
    public func setCommands(_ enabled: Set<RemoteCommand.Kind>, skipForward: Double, skipBackward: Double,
                            from caller: String) throws(NowPlayingError) -> Change {
        try check(caller)
        for interval in [skipForward, skipBackward] where !(interval.isFinite && interval > 0 && interval <= 3_600) {
            throw .invalid("skip intervals must be over 0 and at most 3600 seconds")
        }
        let news = enabled != commands || skipIntervals != (skipForward, skipBackward)
        commands = enabled
        skipIntervals = (skipForward, skipBackward)
        return news ? .info : []
    }

    /// The owner has nothing playing any more: metadata and queue are emptied, ownership stays.
    public func clear(from caller: String) throws(NowPlayingError) -> Change {
        try check(caller)
        reset()
        return .owner
    }

    private func commit(_ updated: PlayQueue) -> Change {
        guard updated != queue else { return [] }
        queue = updated
        return .queue
    }

    static func checkPosition(elapsed: Double, rate: Double) throws(NowPlayingError) {
        guard MediaTime(seconds: elapsed) != nil else { throw .invalid("elapsed must be a number of seconds from 0 to \(MediaTime.limit)") }
        guard rate.isFinite && abs(rate) <= 16 else { throw .invalid("rate must be a finite number from -16 to 16") }
    }

    private func checkText(_ info: NowPlayingInfo) throws(NowPlayingError) {
        try checkText(info.title, "title")
        try checkText(info.album, "album")
        try checkText(info.albumArtist, "album artist")
        try checkText(info.artworkURI, "artwork URI")
        for artist in info.artists { try checkText(artist, "artist") }
        if let duration = info.duration, MediaTime(seconds: duration) == nil {
            throw .invalid("duration must be a number of seconds from 0 to \(MediaTime.limit) (or unknown)")
        }
        try NowPlayingCenter.checkPosition(elapsed: info.elapsed, rate: info.rate)
        guard info.defaultRate.isFinite && info.defaultRate > 0 && info.defaultRate <= 16 else {
            throw .invalid("default rate must be over 0 and at most 16")
        }
        if let number = info.chapterNumber, let count = info.chapterCount, number >= count {
            throw .invalid("chapter number \(number) is out of range: there are \(count) chapter(s), counted from 0")
        }
    }

    private func checkText(_ text: String?, _ field: String) throws(NowPlayingError) {
        guard let text, text.utf8.count > limits.maxStringBytes else { return }
        throw .limit("\(field) of \(text.utf8.count) bytes is over the limit of \(limits.maxStringBytes) (nowPlaying.maxStringBytes)")
    }
}
