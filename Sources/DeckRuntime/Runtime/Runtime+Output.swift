extension Runtime {
    /// Opens the configured sinks (a sink that cannot open is logged and the rest run) and arms the
    /// session: the output itself starts on the first focus grant, or now with `alwaysActive`.
    public func startOutput() throws(RuntimeError) {
        for uri in configuration.sinks {
            do { try addSink(uri) } catch { logger.error("sinks", error.description) }
        }
        apply(session.start(now: loop.now))
    }

    /// Asks plugin `id` to play `item`: the path a remote "play" and `deckd --play` take.
    public func play(pluginID id: String, item: String?) throws(PluginCallError) {
        guard let plugin = plugin(id: id) else { throw PluginCallError(status: .invalid, message: "no plugin with id \(id)") }
        try plugin.startPlayback(item: item)
        logger.info("audio", "\(id): playing \(item ?? "its default item")")
    }

    @discardableResult
    public func addSink(_ uri: String) throws(SinkError) -> SinkInfo {
        var context = SinkContext(loop: loop, logger: logger, preSkip: audio.preSkip,
                                  frameSize: configuration.audio.frameSize, encoder: configuration.audio.encoder)
        context.http = configuration.httpLimits
        let sink = try SinkURI(uri).makeSink(context)
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
        guard let plugin = instanceNumbers[instance] else { return PluginCallError(status: .state, message: "open_stream: unknown plugin") }
        guard plugin.state == .active else {
            return PluginCallError(status: .state, message: "open_stream: \(plugin.id) is \(plugin.state.rawValue), expected active")
        }
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
