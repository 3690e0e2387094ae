import DeckSDK
import MediaPlayback

/// Radio in now playing: the stream's title and artist as they change, the station's picture,
/// live (no duration, no seek); next and previous walk the stations.
extension Radio: DeckNowPlayingPlugin {
    static let commands: Set<RemoteCommand.Kind> = [.play, .pause, .togglePlayPause, .stop, .next, .previous]

    /// The commands that do something now: next and previous only when they reach another station.
    var enabledCommands: Set<RemoteCommand.Kind> {
        stations.count > 1 || (current == nil && !stations.isEmpty) ? Radio.commands : Radio.commands.subtracting([.next, .previous])
    }

    /// The title the stream gives now, if any.
    var streamTitle: String? { streamTags["title"] ?? streamTags["streamtitle"] }

    func publish() {
        guard let station = current else { return }
        do {
            // Published again while paused or through a call (a new list, a picture), it says so still.
            let state: PlaybackState = switch status {
            case .paused: .paused
            case .interrupted: .interrupted
            case .idle, .failed: .stopped
            default: .playing
            }
            var info = NowPlaying(title: streamTitle ?? station.name, artists: streamTags["artist"].map { [$0] } ?? [],
                                  album: station.name, duration: nil, elapsed: 0, state: state)
            info.isLive = true
            info.mediaType = .audio
            info.rate = status == .playing ? 1 : 0  // no time passes while it connects or buffers
            info.artwork = images[station.id]
            try host.setNowPlaying(info, refused: &refusedArtwork)
            let current = stations.firstIndex { $0.id == station.id }, shown = QueueWindow.range(count: stations.count, current: current)
            do {
                // A row key, not the stream URL itself: a token in its query may be longer than the runtime takes.
                try host.setQueue(stations[shown].map { QueueEntry(id: RowKey.of($0.id), title: $0.name, artist: $0.desc) },
                                  current: current.map { $0 - shown.lowerBound })
            } catch {
                host.log(.warning, "the queue not published: \(error.message)")  // the commands still are
            }
            try host.enableCommands(enabledCommands)
            try host.setNowPlayingContent([station.id])
        } catch {
            host.log(.warning, "now playing not published: \(error.message)")
        }
        refreshScreen()
    }

    func publishState(_ state: PlaybackState) {
        if current != nil { try? host.setPosition(elapsed: 0, rate: state == .playing && status == .playing ? 1 : 0, state: state) }
        refreshScreen()
    }

    func handle(_ command: RemoteCommand, token: UInt64) -> CommandResult? {
        switch command {
        case .play:
            return host.commandResult { try self.start(item: nil) }
        case .pause, .stop:
            // A live stream does not wait: pausing stops it, playing tunes in again.
            let calledOff = callOffWaitingStart()
            guard streamOpen else { return calledOff ? .success : .noActionableNowPlayingItem }
            stop()
            if command == .pause {
                status = .paused
                publishState(.paused)
            }
        case .togglePlayPause:
            return handle(streamOpen || startWaits ? .pause : .play, token: token)  // a waiting start is called off
        case .next, .previous:
            guard !stations.isEmpty else { return .noSuchContent }
            // With no station yet, next is the first and previous the last.
            let step = command == .next ? 1 : -1
            let index = stations.firstIndex { $0.id == currentID } ?? (step == 1 ? stations.count - 1 : 0)
            let target = stations[(index + step + stations.count) % stations.count]
            return host.commandResult { try self.start(item: target.id) }
        default:
            return .commandFailed
        }
        return .success
    }
}
