import DeckBase
import DeckControl
import DeckNowPlaying

/// `nowPlaying.*` and `queue.get`: the one now-playing state of the car and its queue, as the
/// HMI draws them; each zone has its own (default: the primary one). Loop-thread-confined.
struct NowPlayingMethods {
    let zones: ZoneSet
    let scheduler: any Scheduler

    var methods: [RPCMethod] {
        let (zones, scheduler) = (zones, scheduler)
        return [
            RPCMethod("nowPlaying.get", "What plays: metadata, position (extrapolate elapsed with rate from the answer's "
                      + "arrival), queue place, enabled commands.", params: [zones.param],
                      result: NowPlayingMethods.nowPlayingSchema) { call throws(RPCError) in
                try zones.zone(of: call).player.center.nowPlayingJSON(now: scheduler.now)
            },
            RPCMethod("nowPlaying.artwork", "The current artwork's bytes (base64), by the id nowPlaying.get gives.",
                      params: [.init("id", Schema.string(maxLength: 32)), zones.param], result: NowPlayingMethods.artworkSchema,
                      errors: [-32007]) { call throws(RPCError) in
                let id = try call.string("id")
                let player = try zones.zone(of: call).player
                guard let artwork = player.center.artwork, artwork.id == id else {
                    throw .noSuchContent("no artwork \(id); the current one is \(player.center.artwork?.id ?? "none")")
                }
                return ["id": .string(id), "mimeType": .string(artwork.mimeType), "data": .string(Base64.encode(artwork.bytes))]
            },
            RPCMethod("queue.get", "The queue of the app that owns now playing: items with stable ids, the current one, "
                      + "shuffle and repeat.", params: [zones.param], result: NowPlayingMethods.queueSchema) { call throws(RPCError) in
                try zones.zone(of: call).player.center.queueJSON
            },
        ]
    }

    static let nowPlayingSchema = Schema.object([
        "owner": Schema.nullable(Schema.string), "playbackState": Schema.oneOf(PlaybackState.allCases.map(\.rawValue)),
        "title": Schema.nullable(Schema.string), "artists": Schema.array(Schema.string), "album": Schema.nullable(Schema.string),
        "albumArtist": Schema.nullable(Schema.string),
        "artwork": Schema.nullable(Schema.object(["id": Schema.string, "mimeType": Schema.string, "bytes": Schema.integer])),
        "artworkUri": Schema.nullable(Schema.string), "duration": Schema.nullable(Schema.number), "elapsed": Schema.number,
        "rate": Schema.number, "defaultRate": Schema.number, "live": Schema.boolean,
        "mediaType": Schema.oneOf(MediaType.allCases.map(\.rawValue)), "chapterNumber": Schema.nullable(Schema.integer),
        "chapterCount": Schema.nullable(Schema.integer), "queueIndex": Schema.nullable(Schema.integer), "queueCount": Schema.integer,
        "itemId": Schema.nullable(Schema.integer), "commands": Schema.array(Schema.oneOf(RemoteCommand.Kind.allCases.map(\.name))),
        "skipIntervals": Schema.object(["forward": Schema.number, "backward": Schema.number]),
    ])

    static let queueSchema = Schema.object([
        "owner": Schema.nullable(Schema.string),
        "items": Schema.array(Schema.object([
            "id": Schema.integer, "key": Schema.string, "title": Schema.nullable(Schema.string), "artist": Schema.nullable(Schema.string),
            "duration": Schema.nullable(Schema.number), "artworkUri": Schema.nullable(Schema.string),
        ])),
        "currentIndex": Schema.nullable(Schema.integer), "upNext": Schema.integer,
        "shuffle": Schema.oneOf(ShuffleMode.allCases.map(\.rawValue)), "repeat": Schema.oneOf(RepeatMode.allCases.map(\.rawValue)),
    ])

    static let artworkSchema = Schema.object(["id": Schema.string, "mimeType": Schema.string, "data": Schema.string])
}
