import CDeckPlugin
import DeckNowPlaying

/// `deck.now-playing` on the host side: the owner publishes what plays, its queue and the
/// commands it carries out (deck/ext/now-playing.h). Arguments are copied and checked here;
/// ownership and limits are the runtime's.
extension PluginHost {
    static var nowPlayingExtension: deck_host_now_playing_t {
        var table = deck_host_now_playing_t()
        table.set_info = { host, info in
            PluginHost.call(host, "set_info") { () throws(PluginCallError) in
                guard let info else { throw PluginCallError(status: .invalid, message: "NULL info") }
                return try PluginHost.read(info.pointee)
            }
        }
        table.set_position = { host, elapsed, rate, state in
            PluginHost.call(host, "set_position") { () throws(PluginCallError) in
                .setPosition(elapsed: elapsed, rate: rate, state: try PluginHost.playbackState(state))
            }
        }
        table.clear = { host in PluginHost.call(host, "clear") { () throws(PluginCallError) in .clear } }
        table.set_queue = { host, items, count, current in
            PluginHost.call(host, "set_queue") { () throws(PluginCallError) in
                guard count == 0 || items != nil else { throw PluginCallError(status: .invalid, message: "NULL items") }
                // nowPlaying.maxQueueItems can be at most 100,000: more is not read at all.
                guard count <= 100_000 else { throw PluginCallError(status: .limit, message: "a queue of \(count) items is over any limit") }
                var queue: [QueueItem] = []
                for index in 0..<Int(count) {
                    let item = items![index]
                    guard let key = try PluginHost.text(item.id, "queue item \(index) id") else {
                        throw PluginCallError(status: .invalid, message: "item \(index) has a NULL id")
                    }
                    queue.append(QueueItem(key: key, title: try PluginHost.text(item.title, "queue item \(index) title"),
                                           artist: try PluginHost.text(item.artist, "queue item \(index) artist"),
                                           duration: item.duration < 0 ? nil : item.duration,
                                           artworkURI: try PluginHost.text(item.artwork_uri, "queue item \(index) artwork_uri")))
                }
                return .setQueue(queue, current: current < 0 ? nil : Int(current))
            }
        }
        table.set_queue_index = { host, current in
            PluginHost.call(host, "set_queue_index") { () throws(PluginCallError) in .setQueueIndex(current < 0 ? nil : Int(current)) }
        }
        table.set_modes = { host, shuffle, repeatMode in
            PluginHost.call(host, "set_modes") { () throws(PluginCallError) in
                guard let shuffling = ShuffleMode(code: shuffle), let repeating = RepeatMode(code: repeatMode) else {
                    throw PluginCallError(status: .invalid, message: "shuffle must be 0-1 and repeat 0-2 "
                                          + "(got \(shuffle), \(repeatMode))")
                }
                return .setModes(shuffling, repeating)
            }
        }
        table.set_commands = { host, commands in
            PluginHost.call(host, "set_commands") { () throws(PluginCallError) in
                guard let commands else { throw PluginCallError(status: .invalid, message: "NULL commands") }
                let mask = commands.pointee.enabled
                let known = RemoteCommand.Kind.allCases
                guard mask >> UInt32(known.count) == 0 else {
                    throw PluginCallError(status: .invalid, message: "unknown command bits in \(mask) "
                                          + "(commands are 0 to \(known.count - 1))")
                }
                let enabled = Set(known.filter { mask & (1 << UInt32($0.rawValue)) != 0 })
                let forward = commands.pointee.skip_forward_seconds, backward = commands.pointee.skip_backward_seconds
                return .setCommands(enabled, skipForward: forward == 0 ? 15 : forward, skipBackward: backward == 0 ? 15 : backward)
            }
        }
        table.complete_command = { host, token, result in
            PluginHost.call(host, "complete_command") { () throws(PluginCallError) in
                guard let result = CommandResult(rawValue: Int(result)) else {
                    throw PluginCallError(status: .invalid, message: "result \(result) is not a deck_command_result_t (0 to 3)")
                }
                return .complete(token: token, result)
            }
        }
        return table
    }

    /// Reads a call's arguments on the loop thread and hands them to the runtime.
    private static func call(_ host: UnsafePointer<deck_host_t>?, _ name: StaticString,
                             _ read: () throws(PluginCallError) -> NowPlayingCall) -> deck_status_t {
        PluginHost.from(host)?.onLoop(name) { owner in
            let call: NowPlayingCall
            do throws(PluginCallError) {
                call = try read()
            } catch {
                return PluginCallError(status: error.status, message: "\(name): \(error.message)")
            }
            return owner.actions.nowPlaying(owner.instance, call).map {
                PluginCallError(status: $0.status, message: "\(name): \($0.message)")
            }
        } ?? DeckStatus.invalid.rawValue
    }

    private static func read(_ info: deck_now_playing_info_t) throws(PluginCallError) -> NowPlayingCall {
        var value = NowPlayingInfo()
        value.title = try text(info.title, "title")
        if info.artist_count > 0 {
            guard let artists = info.artists else { throw PluginCallError(status: .invalid, message: "artists is NULL with a count of \(info.artist_count)") }
            guard info.artist_count <= 32 else { throw PluginCallError(status: .limit, message: "\(info.artist_count) artists are over the limit of 32") }
            for index in 0..<Int(info.artist_count) {
                guard let artist = try text(artists[index], "artist \(index)") else {
                    throw PluginCallError(status: .invalid, message: "artist \(index) is NULL")
                }
                value.artists.append(artist)
            }
        }
        value.album = try text(info.album, "album")
        value.albumArtist = try text(info.album_artist, "album_artist")
        value.artworkURI = try text(info.artwork_uri, "artwork_uri")
        value.duration = info.duration < 0 ? nil : info.duration
        value.defaultRate = info.default_rate == 0 ? 1 : info.default_rate
        value.isLive = info.is_live
        guard let mediaType = MediaType(code: info.media_type) else {
            throw PluginCallError(status: .invalid, message: "media_type \(info.media_type) is not a deck_media_type_t (0 to 3)")
        }
        value.mediaType = mediaType
        value.chapterNumber = info.chapter_number < 0 ? nil : Int(info.chapter_number)
        value.chapterCount = info.chapter_count <= 0 ? nil : Int(info.chapter_count)
        value.setPosition(elapsed: info.elapsed, rate: info.rate, state: try playbackState(info.playback_state), now: 0)
        var artwork: [UInt8]?
        if let bytes = info.artwork, info.artwork_size > 0 {
            guard info.artwork_size <= 64 << 20 else {
                throw PluginCallError(status: .limit, message: "artwork of \(info.artwork_size) bytes is over any limit")
            }
            artwork = Array(UnsafeBufferPointer(start: bytes, count: info.artwork_size))
        }
        return .setInfo(value, artwork: artwork)
    }

    private static func playbackState(_ raw: Int32) throws(PluginCallError) -> PlaybackState {
        guard let state = PlaybackState(code: raw) else {
            throw PluginCallError(status: .invalid, message: "playback_state \(raw) is not a deck_playback_state_t (0 to 3)")
        }
        return state
    }

    /// A C string as Swift text; NULL is nil, bytes that are not UTF-8 are refused.
    static func text(_ pointer: UnsafePointer<CChar>?, _ field: String) throws(PluginCallError) -> String? {
        guard let pointer else { return nil }
        guard let text = String(validatingCString: pointer) else {
            throw PluginCallError(status: .invalid, message: "\(field) is not valid UTF-8")
        }
        return text
    }
}
