import DeckStream
import DeckSession
import DeckPlugins

extension Runtime {
    /// Opens the configured sinks (a sink that cannot open is logged and the rest run) and arms the
    /// session: the output itself starts on the first focus grant, or now with `alwaysActive`.
    /// Throws when sinks were configured and none could open: the output would have nowhere to go.
    public func startOutput() throws(RuntimeError) {
        var failures: [String] = []
        for uri in configuration.sinks {
            do { try addSink(uri) } catch { failures.append(error.description) }
        }
        failures.forEach { logger.error("sinks", $0) }
        if !configuration.sinks.isEmpty && failures.count == configuration.sinks.count {
            throw .noOutput("no sink could open: \(failures.joined(separator: "; "))")
        }
        apply(session.start(now: loop.now))
    }

    /// What came of asking a plugin to play.
    public enum PlayOutcome: Equatable, Sendable {
        /// Its stream is open and in the mix.
        case playing
        /// Its focus request was delayed; it plays when the holder lets go.
        case waitingForFocus
        /// It accepted the request but holds no focus or opened no stream.
        case silent(String)
    }

    /// Asks plugin `id` to play `item`: the path a remote "play" and `deckd --play` take. Logs what
    /// really happened, which may be less than playing.
    @discardableResult
    public func play(pluginID id: String, item: String?) throws(PluginCallError) -> PlayOutcome {
        guard let plugin = plugin(id: id) else { throw PluginCallError(status: .invalid, message: "no plugin with id \(id)") }
        try plugin.startPlayback(item: item)
        let what = item ?? "its default item"
        let owner = FocusOwner.plugin(id)
        let outcome: PlayOutcome
        if plugin.streamSlot != nil {
            outcome = .playing
            logger.info("audio", "\(id): playing \(what)")
        } else if session.arbiter.pending?.owner == owner {
            outcome = .waitingForFocus
            logger.info("audio", "\(id): will play \(what) when its delayed focus request is granted")
        } else {
            let reason = session.arbiter.holder(owner) == nil ? "it holds no audio focus" : "it opened no stream"
            outcome = .silent("\(id) accepted \(what) but \(reason)")
            logger.warning("audio", "\(id) accepted \(what) but \(reason): nothing plays")
        }
        return outcome
    }

    /// Opens a sink. One a client adds (`fromClient`) may write files only inside `files.directory`.
    @discardableResult
    public func addSink(_ uri: String, fromClient: Bool = false) throws(SinkError) -> SinkInfo {
        var context = SinkContext(loop: loop, logger: logger, preSkip: audio.preSkip,
                                  frameSize: configuration.audio.frameSize, encoder: configuration.audio.encoder)
        context.http = configuration.httpLimits
        context.overwriteFiles = configuration.files.overwrite
        guard sinks.list.count < configuration.maxSinks else { throw .tooMany(configuration.maxSinks) }
        var parsed = try SinkURI(uri)
        if fromClient, case .file(let path, let pipe) = parsed {
            parsed = .file(path: try configuration.files.confine(path, uri: uri), pipe: pipe)
        }
        let sink = try parsed.makeSink(context)
        let id = sinks.add(sink)
        logger.info("sinks", "sink \(id): \(sink.uri)")
        return SinkInfo(id: id, uri: sink.uri, status: sink.status)
    }

    public func removeSink(_ id: Int) throws(SinkError) {
        try sinks.remove(id)
        logger.info("sinks", "sink \(id) removed")
    }

    /// Starts a run of the audio thread; real-time scheduling is tried when paced and reported.
    func startAudioRun() {
        do {
            try audio.start()
        } catch {
            logger.error("audio", "cannot start the output: \(error)")
            return
        }
        let mode = configuration.audio.freewheel ? "freewheel" : (audio.requestRealtimePriority() ? "paced, real-time priority" : "paced")
        logger.info("audio", "output started: \(configuration.audio.frameSize) frames, \(configuration.audio.encoder.bitrate / 1000) kbit/s, \(mode)")
    }

    func openStream(instance: Int) -> PluginCallError? {
        if let problem = notActive(instance, call: "open_stream") { return problem }
        let plugin = instanceNumbers[instance]!
        guard let source = plugin.renderSource else {
            return PluginCallError(status: .unsupported, message: "open_stream: \(plugin.id) does not offer deck.audio")
        }
        let owner = FocusOwner.plugin(plugin.id)
        guard session.arbiter.holder(owner) != nil else {
            return PluginCallError(status: .state, message: "open_stream: \(plugin.id) holds no audio focus; request it first")
        }
        guard plugin.streamSlot == nil else { return nil }
        do {
            plugin.streamSlot = try audio.openStream(source, gain: session.targetGain(owner), counters: plugin.streamCounters)
        } catch {
            return PluginCallError(status: .limit, message: "open_stream: \(error)")
        }
        logger.debug("audio", "\(plugin.id): stream opened")
        apply(session.streamOpened(owner, now: loop.now))
        return nil
    }

    func closeStream(instance: Int) -> PluginCallError? {
        guard let plugin = instanceNumbers[instance], let slot = plugin.streamSlot else { return nil }
        audio.closeStream(slot)
        plugin.streamSlot = nil
        logger.debug("audio", "\(plugin.id): stream closed")
        apply(session.streamClosed(.plugin(plugin.id), now: loop.now))
        return nil
    }
}
