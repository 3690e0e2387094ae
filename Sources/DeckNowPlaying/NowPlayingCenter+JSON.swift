import DeckBase

/// The center as `nowPlaying.get`, `queue.get` and their notifications show it.
extension NowPlayingCenter {
    /// Now playing at `now`, elapsed extrapolated; clients extrapolate further with `rate`. (Keys in
    /// byte order, as the answer is written: nothing to sort on every call.)
    public func nowPlayingJSON(now: UInt64) -> JSONValue {
        let optionalText: (String?) -> JSONValue = { $0.map(JSONValue.string) ?? .null }
        let number: (Double?) -> JSONValue = { $0.map(JSONValue.double) ?? .null }
        let integer: (Int?) -> JSONValue = { $0.map { .int(Int64($0)) } ?? .null }
        return [
            "album": optionalText(info.album),
            "albumArtist": optionalText(info.albumArtist),
            "artists": .array(info.artists.map(JSONValue.string)),
            "artwork": artwork.map { ["bytes": .int(Int64($0.bytes.count)), "id": .string($0.id), "mimeType": .string($0.mimeType)] } ?? .null,
            "artworkUri": optionalText(info.artworkURI),
            "chapterCount": integer(info.chapterCount),
            "chapterNumber": integer(info.chapterNumber),
            "commands": .array(RemoteCommand.Kind.allCases.filter(commands.contains).map { .string($0.name) }),
            "defaultRate": .double(info.defaultRate),
            "duration": number(info.duration),
            "elapsed": .double(info.elapsed(at: now)),
            "itemId": queue.current.map { .int(Int64($0.id)) } ?? .null,
            "live": .bool(info.isLive),
            "mediaType": .string(info.mediaType.rawValue),
            "owner": optionalText(owner),
            "playbackState": .string(info.playbackState.rawValue),
            "queueCount": .int(Int64(queue.items.count)),
            "queueIndex": integer(queue.currentIndex),
            "rate": .double(info.effectiveRate),
            "skipIntervals": ["backward": .double(skipIntervals.backward), "forward": .double(skipIntervals.forward)],
            "title": optionalText(info.title),
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
