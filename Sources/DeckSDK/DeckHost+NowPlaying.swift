import CDeckPlugin
import Glibc

/// `deck.now-playing`: publishing what plays, the queue and the commands the plugin carries out.
/// Only the owner of now playing (the plugin holding, or last holding, music focus) may; others
/// get `DeckError(.notOwner, …)`. Loop thread.
extension DeckHost {
    public func setNowPlaying(_ info: NowPlaying) throws(DeckError) {
        let table = try nowPlaying()
        var raw = deck_now_playing_info_t()
        raw.duration = info.duration ?? -1
        raw.elapsed = info.elapsed
        raw.rate = info.rate
        raw.is_live = info.isLive
        raw.media_type = info.mediaType.code
        raw.playback_state = info.state.code
        raw.chapter_number = Int32(clamping: info.chapterNumber ?? -1)
        raw.chapter_count = Int32(clamping: info.chapterCount ?? 0)
        let status = CStrings.with([info.title, info.album, info.albumArtist, info.artworkURI]) { fields in
            CStrings.with(info.artists) { artists in
                raw.title = fields[0]
                raw.album = fields[1]
                raw.album_artist = fields[2]
                raw.artwork_uri = fields[3]
                raw.artist_count = UInt32(artists.count)
                return artists.withUnsafeBufferPointer { list in
                    raw.artists = list.baseAddress
                    guard let artwork = info.artwork else { return table.pointee.set_info(self.raw, &raw) }
                    return artwork.withUnsafeBufferPointer { bytes in
                        raw.artwork = bytes.baseAddress
                        raw.artwork_size = bytes.count
                        return table.pointee.set_info(self.raw, &raw)
                    }
                }
            }
        }
        try check(status)
    }

    /// Re-anchors the position: a seek, a new rate, pause or play.
    public func setPosition(elapsed: Double, rate: Double, state: PlaybackState) throws(DeckError) {
        try check(try nowPlaying().pointee.set_position(raw, elapsed, rate, state.code))
    }

    public func clearNowPlaying() throws(DeckError) {
        try check(try nowPlaying().pointee.clear(raw))
    }

    /// Replaces the queue; `current` is the index playing, nil for none.
    public func setQueue(_ entries: [QueueEntry], current: Int?) throws(DeckError) {
        let table = try nowPlaying()
        let texts = entries.flatMap { [$0.id, $0.title, $0.artist] }
        let status = CStrings.with(texts) { pointers in
            let items = entries.indices.map { index in
                deck_queue_item_t(id: pointers[index * 3], title: pointers[index * 3 + 1], artist: pointers[index * 3 + 2],
                                  duration: entries[index].duration ?? -1, artwork_uri: nil, reserved: (nil, nil))
            }
            return items.withUnsafeBufferPointer {
                table.pointee.set_queue(raw, $0.baseAddress, UInt32(entries.count), Int32(clamping: current ?? -1))
            }
        }
        try check(status)
    }

    public func setQueueIndex(_ current: Int?) throws(DeckError) {
        try check(try nowPlaying().pointee.set_queue_index(raw, Int32(clamping: current ?? -1)))
    }

    public func setModes(shuffle: ShuffleMode, repeat repeatMode: RepeatMode) throws(DeckError) {
        try check(try nowPlaying().pointee.set_modes(raw, shuffle.code, repeatMode.code))
    }

    /// The remote commands the plugin carries out; the host refuses the others for it.
    public func enableCommands(_ kinds: Set<RemoteCommand.Kind>, skipForward: Double = 15, skipBackward: Double = 15) throws(DeckError) {
        var set = deck_command_set_t()
        set.enabled = kinds.reduce(0) { $0 | (1 << UInt32($1.rawValue)) }
        set.skip_forward_seconds = skipForward
        set.skip_backward_seconds = skipBackward
        try check(try nowPlaying().pointee.set_commands(raw, &set))
    }

    /// Answers a command `handle` left pending.
    public func completeCommand(_ token: UInt64, _ result: CommandResult) throws(DeckError) {
        try check(try nowPlaying().pointee.complete_command(raw, token, Int32(result.rawValue)))
    }

    private func nowPlaying() throws(DeckError) -> UnsafePointer<deck_host_now_playing_t> {
        guard let pointer = extensionPointer(DECK_EXT_NOW_PLAYING) else {
            throw DeckError(.unsupported, "the host does not offer deck.now-playing (it implements ABI \(raw.pointee.abi.major).\(raw.pointee.abi.minor))")
        }
        return pointer.assumingMemoryBound(to: deck_host_now_playing_t.self)
    }
}

/// Optional Swift strings as C strings that live for one call.
enum CStrings {
    static func with<R>(_ texts: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = texts.map { $0.map { strdup($0)! } }
        defer { copies.forEach { free($0) } }
        return body(copies.map { $0.map { UnsafePointer($0) } })
    }

    static func with<R>(_ texts: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        with(texts.map(Optional.some), body)
    }
}
