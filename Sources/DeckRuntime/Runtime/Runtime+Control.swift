import DeckBase
import DeckControl

extension Runtime {
    /// Topics the runtime publishes.
    public static let eventTopics = ["apps.changed", "session.changed", "sinks.changed", "volume.changed",
                                     "nowPlaying.changed", "queue.changed", "ui.changed"]

    /// `ui.changed` at most once per this window (a plugin refreshing rows in a loop).
    static let uiCoalesceMilliseconds = 50

    /// The dispatcher for this runtime's JSON-RPC API: the built-ins (`rpc.discover`, `auth.login`,
    /// `events.*`) and one method table per namespace.
    public func makeDispatcher() -> RPCDispatcher {
        let dispatcher = RPCDispatcher()
        dispatcher.topics = events.topics
        dispatcher.registerBuiltins(title: "Deck", version: DeckVersion.string)
        for method in RuntimeMethods(runtime: self).methods + AppsMethods(runtime: self).methods
            + SessionMethods(runtime: self).methods + SinksMethods(runtime: self).methods + VolumeMethods(runtime: self).methods
            + PlayerMethods(runtime: self).methods + NowPlayingMethods(runtime: self).methods + UIMethods(runtime: self).methods {
            dispatcher.register(method)
        }
        return dispatcher
    }

    /// One log line of the runtime's state, for SIGUSR1 and the like.
    public var statusLine: String {
        let stats = audio.stats
        return "\(plugins.count) plugin(s), \(plugins.loadFailures.count) refused; output \(session.isActive ? "active" : "inactive"), "
            + "\(stats.frames.load(ordering: .relaxed)) frames, \(stats.lateEvents.load(ordering: .relaxed)) late, "
            + "\(stats.droppedPackets.load(ordering: .relaxed)) packets dropped; \(sinks.list.count) sink(s)"
    }

    /// Publishes a change on `topic` with its payload object.
    func publish(_ topic: String, _ payload: JSONValue) {
        guard case .object(let members) = payload else { preconditionFailure("\(topic): a notification's payload is an object") }
        events.publish(topic, members)
    }
}
