import DeckPlugins
import DeckSession

extension FocusCoordinator {
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
        guard let plugin = plugins.plugin(id: id) else { throw PluginCallError(status: .invalid, message: "no plugin with id \(id)") }
        try plugin.startPlayback(item: item)
        let what = item ?? "its default item"
        let owner = FocusOwner.plugin(id)
        let outcome: PlayOutcome
        if output.hasStream(id) {
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

    /// Whether plugin `id` has a stream in the mix.
    public func isStreaming(_ id: String) -> Bool { output.hasStream(id) }
}
