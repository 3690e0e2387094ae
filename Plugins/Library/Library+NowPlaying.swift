import DeckSDK
import MediaPlayback

/// Library in now playing: the track's tags, cover and position, the queue, and the remote
/// commands (seek, next/previous, shuffle and repeat among them).
extension Library: DeckNowPlayingPlugin {
    static let commands: Set<RemoteCommand.Kind> = [.play, .pause, .togglePlayPause, .stop, .next, .previous, .seek, .skip,
                                                    .setShuffle, .setRepeat]

    /// The commands that do something now: next only while a track follows or the queue repeats
    /// all, so a head unit greys it out at the queue's end and MPRIS's CanGoNext is false there.
    var enabledCommands: Set<RemoteCommand.Kind> {
        position + 1 < queue.count || repeatMode == .all ? Library.commands : Library.commands.subtracting([.next])
    }

    func publish(elapsed: Double) {
        guard let track = currentTrack else { return }
        do {
            let state: PlaybackState = paused ? .paused : streamOpen ? .playing : .stopped
            var info = NowPlaying(title: track.title, artists: [track.artist], album: track.album, duration: track.duration,
                                  elapsed: elapsed, state: state)
            info.albumArtist = track.albumArtist
            info.artwork = cover
            info.rate = state == .playing ? 1 : 0
            try host.setNowPlaying(info, refused: &refusedArtwork)
            let shown = QueueWindow.range(count: queue.count, current: position)
            do {
                try host.setQueue(queue[shown].map { QueueEntry(id: RowKey.of(tracks[$0].path), title: tracks[$0].title, artist: tracks[$0].artist,
                                                                duration: tracks[$0].duration) }, current: position - shown.lowerBound)
            } catch {
                host.log(.warning, "the queue not published: \(error.message)")  // the commands still are
            }
            try host.setModes(shuffle: shuffle, repeat: repeatMode)
            try host.enableCommands(enabledCommands, skipForward: 15, skipBackward: 15)
            try host.setNowPlayingContent([track.path])
        } catch {
            host.log(.warning, "now playing not published: \(error.message)")
        }
        refreshScreen()
    }

    func publishState(_ state: PlaybackState, elapsed: Double) {
        if currentTrack != nil { try? host.setPosition(elapsed: elapsed, rate: state == .playing ? 1 : 0, state: state) }
        refreshScreen()
    }

    func handle(_ command: RemoteCommand, token: UInt64) -> CommandResult? {
        let elapsed = player.current?.elapsed ?? saved.position
        switch command {
        case .play:
            if paused { return resume() }  // a pause closed the stream; the player holds what follows
            return host.commandResult { try self.start(item: nil) }
        case .pause:
            let calledOff = callOffWaitingStart()
            guard streamOpen, !paused else { return calledOff ? .success : .noActionableNowPlayingItem }
            try? host.closeStream()  // the queued audio waits in the player: play continues exactly here
            streamOpen = false
            paused = true
            saveState(elapsed: elapsed)
            publishState(.paused, elapsed: elapsed)
        case .togglePlayPause:
            return handle((streamOpen && !paused) || startWaits ? .pause : .play, token: token)  // a waiting start is called off
        case .stop:
            saveState(elapsed: elapsed)
            stop()
        case .next, .previous:
            guard !queue.isEmpty else { return .noActionableNowPlayingItem }
            // Previous restarts the track after its first 3 s, and at the queue's first track, as phones do.
            let restarts = elapsed > 3 || (position == 0 && repeatMode != .all)
            let target = command == .next ? position + 1 : (restarts ? position : position - 1)
            guard queue.indices.contains(target) || repeatMode == .all else { return .noSuchContent }
            return host.commandResult { try self.playQueueTakingFocus(from: (target + self.queue.count) % self.queue.count) }
        case .seek(let seconds):
            guard currentTrack != nil else { return .noActionableNowPlayingItem }
            return host.commandResult { try self.playQueueTakingFocus(from: self.position, at: min(seconds, self.currentTrack?.duration ?? seconds)) }
        case .skip(let seconds):
            return handle(.seek(max(0, elapsed + seconds)), token: token)
        case .setShuffle(let mode):
            guard let current = queue.indices.contains(position) ? queue[position] : nil else { return .noActionableNowPlayingItem }
            shuffle = mode
            queue = mode == .off ? unshuffled : [current] + unshuffled.filter { $0 != current }.shuffled()
            // The track plays on (or stays paused or stopped) where it is; what follows it is the new order.
            return host.commandResult { try self.playQueue(from: self.queue.firstIndex(of: current) ?? 0, at: elapsed, resuming: false) }
        case .setRepeat(let mode):
            repeatMode = mode
            try? host.setModes(shuffle: shuffle, repeat: mode)
            try? host.enableCommands(enabledCommands, skipForward: 15, skipBackward: 15)
        default:
            return .commandFailed
        }
        return .success
    }

    /// Plays the queue from `index`; stopped (the album ended, or stop was pressed), it takes the
    /// focus back first, as a paused or playing Library still holds it.
    private func playQueueTakingFocus(from index: Int, at: Double = 0) throws {
        if !streamOpen, !paused { try takeFocus() }
        try playQueue(from: index, at: at)
    }

    private func resume() -> CommandResult {
        host.commandResult {
            try self.takeFocus()
            try self.host.openStream()
            self.streamOpen = true
            self.paused = false
            self.publishState(.playing, elapsed: self.player.current?.elapsed ?? 0)
            self.followPlayer()  // a track that began just before the pause
        }
    }
}
