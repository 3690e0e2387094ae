import DeckBase

/// The center as `nowPlaying.get`, `queue.get` and their notifications show it.
extension NowPlayingCenter {
    /// Now playing at `now`, elapsed extrapolated; clients extrapolate further with `rate`. (Keys in
    /// byte order, as the answer is written: nothing to sort on every call.)
    public func nowPlayingJSON(now: UInt64) -> JSONValue {
        let optionalText: (String?) -> JSONValue = { $0.map(JSONValue.string) ?? .null }
        let number: (Double?) -> JSONValue = { $0.map(JSONValue.double) ?? .null }
        let integer: (Int?) -> JSONValue = { $0.map { .int(Int64($0)) } ?? .null }
        return .object(JSONObject(inKeyOrder: [
            .init("album", optionalText(info.album)),
            .init("albumArtist", optionalText(info.albumArtist)),
            .init("artists", .array(info.artists.map(JSONValue.string))),
            .init("artwork", artwork.map { ["bytes": .int(Int64($0.bytes.count)), "id": .string($0.id), "mimeType": .string($0.mimeType)] } ?? .null),
            .init("artworkUri", optionalText(info.artworkURI)),
            .init("chapterCount", integer(info.chapterCount)),
            .init("chapterNumber", integer(info.chapterNumber)),
            .init("commands", .array(RemoteCommand.Kind.allCases.filter(commands.contains).map { .string($0.name) })),
            .init("defaultRate", .double(info.defaultRate)),
            .init("duration", number(info.duration)),
            .init("elapsed", .double(info.elapsed(at: now))),
            .init("itemId", queue.current.map { .int(Int64($0.id)) } ?? .null),
            .init("live", .bool(info.isLive)),
            .init("mediaType", .string(info.mediaType.rawValue)),
            .init("owner", optionalText(owner)),
            .init("playbackState", .string(info.playbackState.rawValue)),
            .init("queueCount", .int(Int64(queue.items.count))),
            .init("queueIndex", integer(queue.currentIndex)),
            .init("rate", .double(info.effectiveRate)),
            .init("skipIntervals", ["backward": .double(skipIntervals.backward), "forward": .double(skipIntervals.forward)]),
            .init("title", optionalText(info.title)),
        ]))
    }

    /// The queue, in key order as `nowPlayingJSON` is (an album's queue is many items).
    public var queueJSON: JSONValue {
        .object(JSONObject(inKeyOrder: [
            .init("currentIndex", queue.currentIndex.map { .int(Int64($0)) } ?? .null),
            .init("items", .array(queue.items.map(NowPlayingCenter.json))),
            .init("owner", owner.map(JSONValue.string) ?? .null),
            .init("repeat", .string(queue.repeatMode.rawValue)),
            .init("shuffle", .string(queue.shuffle.rawValue)),
            .init("upNext", .int(Int64(queue.upNext.count))),
        ]))
    }

    static func json(_ item: QueueItem) -> JSONValue {
        .object(JSONObject(inKeyOrder: [
            .init("artist", item.artist.map(JSONValue.string) ?? .null),
            .init("artworkUri", item.artworkURI.map(JSONValue.string) ?? .null),
            .init("duration", item.duration.map(JSONValue.double) ?? .null),
            .init("id", .int(Int64(item.id))),
            .init("key", .string(item.key)),
            .init("title", item.title.map(JSONValue.string) ?? .null),
        ]))
    }
}
