import DeckBase

/// The center as `nowPlaying.get`, `queue.get` and their notifications show it.
extension NowPlayingCenter {
    /// Now playing at `now`, elapsed extrapolated; clients extrapolate further with `rate`.
    public func nowPlayingJSON(now: UInt64) -> JSONValue {
        let optionalText: (String?) -> JSONValue = { $0.map(JSONValue.string) ?? .null }
        let number: (Double?) -> JSONValue = { $0.map(JSONValue.double) ?? .null }
        let integer: (Int?) -> JSONValue = { $0.map { .int(Int64($0)) } ?? .null }
        return [
            "owner": optionalText(owner),
            "playbackState": .string(info.playbackState.rawValue),
            "title": optionalText(info.title),
            "artists": .array(info.artists.map(JSONValue.string)),
            "album": optionalText(info.album),
            "albumArtist": optionalText(info.albumArtist),
            "artwork": artwork.map { ["id": .string($0.id), "mimeType": .string($0.mimeType), "bytes": .int(Int64($0.bytes.count))] } ?? .null,
            "artworkUri": optionalText(info.artworkURI),
            "duration": number(info.duration),
            "elapsed": .double(info.elapsed(at: now)),
            "rate": .double(info.effectiveRate),
            "defaultRate": .double(info.defaultRate),
            "live": .bool(info.isLive),
            "mediaType": .string(info.mediaType.rawValue),
            "chapterNumber": integer(info.chapterNumber),
            "chapterCount": integer(info.chapterCount),
            "queueIndex": integer(queue.currentIndex),
            "queueCount": .int(Int64(queue.items.count)),
            "itemId": queue.current.map { .int(Int64($0.id)) } ?? .null,
            "commands": .array(RemoteCommand.Kind.allCases.filter(commands.contains).map { .string($0.name) }),
            "skipIntervals": ["forward": .double(skipIntervals.forward), "backward": .double(skipIntervals.backward)],
        ]
    }

    public var queueJSON: JSONValue {
        [
            "owner": owner.map(JSONValue.string) ?? .null,
            "items": .array(queue.items.map(NowPlayingCenter.json)),
            "currentIndex": queue.currentIndex.map { .int(Int64($0)) } ?? .null,
            "upNext": .int(Int64(queue.upNext.count)),
            "shuffle": .string(queue.shuffle.rawValue),
            "repeat": .string(queue.repeatMode.rawValue),
        ]
    }

    static func json(_ item: QueueItem) -> JSONValue {
        [
            "id": .int(Int64(item.id)),
            "key": .string(item.key),
            "title": item.title.map(JSONValue.string) ?? .null,
            "artist": item.artist.map(JSONValue.string) ?? .null,
            "duration": item.duration.map(JSONValue.double) ?? .null,
            "artworkUri": item.artworkURI.map(JSONValue.string) ?? .null,
        ]
    }
}
