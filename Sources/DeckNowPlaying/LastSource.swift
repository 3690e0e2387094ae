/// What played last, to resume after the owner went away or the runtime restarted: the app, its
/// queue and where it was.
public struct LastSource: Equatable, Sendable {
    public var pluginID: String
    public var queue: PlayQueue
    /// The owner's key of the item that played, if any.
    public var itemKey: String?
    public var position: Double

    public init(pluginID: String, queue: PlayQueue = PlayQueue(), itemKey: String? = nil, position: Double = 0) {
        self.pluginID = pluginID
        self.queue = queue
        self.itemKey = itemKey
        self.position = position
    }
}

extension NowPlayingCenter {
    /// The center as a source to resume, at `now`; nil without an owner.
    public func lastSource(now: UInt64) -> LastSource? {
        guard let owner else { return nil }
        return LastSource(pluginID: owner, queue: queue, itemKey: queue.current?.key, position: info.elapsed(at: now))
    }
}
