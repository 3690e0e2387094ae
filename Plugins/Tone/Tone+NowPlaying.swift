import DeckSDK

/// Tone in now playing: what it publishes and the remote commands it carries out.
extension Tone: DeckNowPlayingPlugin {
    static let commands: Set<RemoteCommand.Kind> = [.play, .pause, .togglePlayPause, .stop, .next, .previous, .seek, .setRepeat]

    /// The commands that do something now: next and previous only where the queue has a signal
    /// that way or repeats all, so a head unit greys them out at its ends (MPRIS's CanGoNext).
    var enabledCommands: Set<RemoteCommand.Kind> {
        guard repeatMode != .all, let item, let index = queue.firstIndex(of: item) else { return Tone.commands }
        return Tone.commands.subtracting((index + 1 < queue.count ? [] : [.next]) + (index > 0 ? [] : [.previous]))
    }

    /// Seconds into the current item.
    var elapsed: Double { Double(framesRendered.load(ordering: .relaxed)) / Signal.sampleRate }

    /// Publishes the item, the queue and the commands (after a new item starts).
    func publish() {
        guard let signal, let item else { return }
        do {
            var info = NowPlaying(title: signal.title, artists: ["Tone"], album: "Test signals", duration: signal.duration,
                                  elapsed: elapsed, state: .playing)
            info.isLive = signal.duration == nil
            try host.setNowPlaying(info)
            do {
                try host.setQueue(queue.map { QueueEntry(id: $0, title: Signal(item: $0)?.title, artist: "Tone",
                                                         duration: Signal(item: $0)?.duration) },
                                  current: queue.firstIndex(of: item))
            } catch {
                host.log(.warning, "the queue not published: \(error.message)")  // the commands still are
            }
            try host.setModes(shuffle: .off, repeat: repeatMode)
            try host.enableCommands(enabledCommands, skipForward: 5, skipBackward: 5)
        } catch {
            host.log(.warning, "now playing not published: \(error.message)")
        }
        refreshScreen()
    }

    func publishPosition(state: PlaybackState) {
        try? host.setPosition(elapsed: elapsed, rate: state == .playing ? 1 : 0, state: state)
        refreshScreen()
    }

    func handle(_ command: RemoteCommand, token: UInt64) -> CommandResult? {
        switch command {
        case .play:
            guard let item else { return start(Signal.defaultItem) }
            guard signal != nil else { return start(item) }
            return resume()
        case .pause:
            let calledOff = callOffWaitingStart()
            guard signal != nil else { return calledOff ? .success : .noActionableNowPlayingItem }
            try? host.closeStream()  // the signal keeps its place: play continues from it
            paused = true
            publishPosition(state: .paused)
        case .togglePlayPause:
            return handle(isPlaying || startWaits ? .pause : .play, token: token)  // a waiting start is called off
        case .stop:
            stop()
        case .next, .previous:
            guard let item, let index = queue.firstIndex(of: item) else { return .noActionableNowPlayingItem }
            let target = index + (command == .next ? 1 : -1)
            guard queue.indices.contains(target) || repeatMode == .all else { return .noSuchContent }
            return start(queue[(target + queue.count) % queue.count])
        case .seek(let seconds):
            guard signal != nil else { return .noActionableNowPlayingItem }
            let open = isPlaying
            try? host.closeStream()
            signal!.seek(to: seconds)
            framesRendered.store(Int(seconds.truncatingRemainder(dividingBy: signal!.duration ?? .infinity) * Signal.sampleRate),
                                 ordering: .relaxed)
            if open { try? host.openStream() }
            publishPosition(state: open ? .playing : .paused)
        case .setRepeat(let mode):
            repeatMode = mode
            try? host.setModes(shuffle: .off, repeat: mode)
            try? host.enableCommands(enabledCommands, skipForward: 5, skipBackward: 5)
        default:
            return .commandFailed
        }
        return .success
    }

    /// A sweep pass ended: repeat it, play the next signal, or stop at the end of the queue.
    func itemEnded() {
        guard let item, let index = queue.firstIndex(of: item) else { return }
        if repeatMode == .one {
            publishPosition(state: .playing)
        } else if index + 1 < queue.count || repeatMode == .all {
            _ = start(queue[(index + 1) % queue.count])
        } else {
            stop()
        }
    }

    private var isPlaying: Bool { signal != nil && !paused }

    private func start(_ item: String) -> CommandResult {
        do {
            try start(item: item)
            return .success
        } catch {
            return .commandFailed
        }
    }

    private func resume() -> CommandResult {
        do {
            if try host.requestFocus(context: "music", acceptsDelayed: false) != .granted { return .commandFailed }
            try host.openStream()
            paused = false
            publishPosition(state: .playing)
            return .success
        } catch {
            return .commandFailed
        }
    }
}
