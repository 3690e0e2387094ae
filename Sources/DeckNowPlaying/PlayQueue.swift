/// One entry of the queue. `key` is the owner's own id for it (what it is told to play); `id` is
/// the runtime's, stable while the item stays queued and never reused within a run.
public struct QueueItem: Equatable, Sendable {
    public var id: UInt64 = 0
    public var key: String
    public var title: String?
    public var artist: String?
    /// Seconds, nil when unknown.
    public var duration: Double?
    public var artworkURI: String?

    public init(key: String, title: String? = nil, artist: String? = nil, duration: Double? = nil, artworkURI: String? = nil) {
        self.key = key
        self.title = title
        self.artist = artist
        self.duration = duration
        self.artworkURI = artworkURI
    }
}

/// The owner's queue: items, the current one, shuffle and repeat.
public struct PlayQueue: Equatable, Sendable {
    public private(set) var items: [QueueItem] = []
    /// Index of the current item, nil when none is.
    public private(set) var currentIndex: Int?
    public var shuffle: ShuffleMode = .off
    public var repeatMode: RepeatMode = .off

    public init() {}

    public var current: QueueItem? { currentIndex.map { items[$0] } }

    /// Items after the current one (all of them when none is current).
    public var upNext: ArraySlice<QueueItem> { items[(currentIndex.map { $0 + 1 } ?? 0)...] }

    /// Replaces the items after checking them; an item whose key was queued before keeps its id,
    /// a new one takes the next from `nextID`.
    public mutating func replace(with newItems: [QueueItem], current: Int?, maxItems: Int,
                                 nextID: inout UInt64) throws(NowPlayingError) {
        guard newItems.count <= maxItems else {
            throw .limit("a queue of \(newItems.count) items is over the limit of \(maxItems) (nowPlaying.maxQueueItems)")
        }
        var seen = Set<String>()
        for item in newItems where !seen.insert(item.key).inserted {
            throw .invalid("queue item id \"\(item.key)\" appears twice; ids must be unique")
        }
        try PlayQueue.check(current, count: newItems.count)
        let known = Dictionary(items.map { ($0.key, $0.id) }, uniquingKeysWith: { first, _ in first })
        items = newItems.map { item in
            var item = item
            if let id = known[item.key] {
                item.id = id
            } else {
                nextID += 1
                item.id = nextID
            }
            return item
        }
        currentIndex = current
    }

    public mutating func select(_ index: Int?) throws(NowPlayingError) {
        try PlayQueue.check(index, count: items.count)
        currentIndex = index
    }

    private static func check(_ index: Int?, count: Int) throws(NowPlayingError) {
        guard let index else { return }
        guard index >= 0 && index < count else {
            throw .invalid("queue index \(index) is out of range: the queue has \(count) item(s)"
                           + (count > 0 ? ", 0 to \(count - 1)" : "") + "; pass -1 for none")
        }
    }
}
