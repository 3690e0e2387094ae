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
            RuntimeMethods(registry: plugins, zones: zones, output: output).methods,
            AppsMethods(registry: plugins, supervisor: supervisor, zones: zones, interface: interface, events: publisher).methods,
            SessionMethods(zones: zones).methods,
            SinksMethods(output: output, zones: zones, pins: configuration.pins, events: publisher, state: state, logger: logger).methods,
            VolumeMethods(zones: zones).methods,
            PlayerMethods(zones: zones).methods,
            NowPlayingMethods(zones: zones, scheduler: scheduler).methods,
            ZonesMethods(zones: zones, output: output, registry: plugins).methods,
            UIMethods(interface: interface, zones: zones, scheduler: scheduler).methods,
        ]
        for method in tables.joined() { dispatcher.register(method) }
        return dispatcher
    }

    /// One log line of the runtime's state, for SIGUSR1 and the like.
    public var statusLine: String {
        let stats = audio.stats
        return "\(plugins.count) plugin(s), \(plugins.loadFailures.count) refused; output \(zones.isActive ? "active" : "inactive"), "
            + "\(stats.frames.load(ordering: .relaxed)) frames, \(stats.lateEvents.load(ordering: .relaxed)) late, "
            + "\(stats.droppedPackets.load(ordering: .relaxed)) packets dropped; \(sinks.count) sink(s)"
    }
}
