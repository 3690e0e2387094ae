import DeckBase
import DeckControl

extension Runtime {
    /// Topics the runtime publishes.
    public static var eventTopics: [String] { EventPublisher.topics }

    /// The dispatcher for this runtime's JSON-RPC API: the built-ins (`rpc.discover`, `auth.login`,
    /// `events.*`) and one method table per namespace, each given only what it serves.
    public func makeDispatcher() -> RPCDispatcher {
        let dispatcher = RPCDispatcher()
        dispatcher.topics = events.topics
        dispatcher.registerBuiltins(title: "Deck", version: DeckVersion.string)
        let tables: [[RPCMethod]] = [
            RuntimeMethods(registry: plugins, focus: focus, output: output).methods,
            AppsMethods(registry: plugins, supervisor: supervisor, focus: focus, player: player, interface: interface, events: publisher).methods,
            SessionMethods(focus: focus).methods,
            SinksMethods(output: output, pins: configuration.pins, events: publisher, state: state, logger: logger).methods,
            VolumeMethods(focus: focus).methods,
            PlayerMethods(player: player).methods,
            NowPlayingMethods(player: player, scheduler: scheduler).methods,
            UIMethods(interface: interface, player: player, scheduler: scheduler).methods,
        ]
        for method in tables.joined() { dispatcher.register(method) }
        return dispatcher
    }

    /// One log line of the runtime's state, for SIGUSR1 and the like.
    public var statusLine: String {
        let stats = audio.stats
        return "\(plugins.count) plugin(s), \(plugins.loadFailures.count) refused; output \(session.isActive ? "active" : "inactive"), "
            + "\(stats.frames.load(ordering: .relaxed)) frames, \(stats.lateEvents.load(ordering: .relaxed)) late, "
            + "\(stats.droppedPackets.load(ordering: .relaxed)) packets dropped; \(sinks.list.count) sink(s)"
    }
}
