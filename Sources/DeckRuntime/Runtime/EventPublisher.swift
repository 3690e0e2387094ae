import DeckBase
import DeckControl
import DeckNowPlaying
import DeckPlugins

/// Publishes the runtime's notifications on its event hub, each payload as its `*.get` method
/// answers: `nowPlaying.changed`, `queue.changed` and `ui.changed` at most once per window, and
/// `session.changed` once per change of `session.get` or of someone's focus. Loop-thread-confined.
final class EventPublisher {
    /// Topics the runtime publishes.
    static let topics = ["apps.changed", "session.changed", "sinks.changed", "volume.changed",
                         "nowPlaying.changed", "queue.changed", "ui.changed"]
    /// `ui.changed` at most once per this window (a plugin refreshing rows in a loop).
    static let uiCoalesceMilliseconds = 50

    let hub = EventHub(topics: EventPublisher.topics)
    private let registry: PluginRegistry
    private let focus: FocusCoordinator
    private let player: PlayerCoordinator
    private let interface: InterfaceCoordinator
    private let output: Output
    private let pins: [AudioContext: String]
    private let scheduler: any Scheduler
    private let nowPlayingNotices: NotificationCoalescer
    private let queueNotices: NotificationCoalescer
    private let uiNotices: NotificationCoalescer
    /// What the last `session.changed` said, so every change of `session.get` is published once.
    private var publishedSession: JSONValue?

    init(registry: PluginRegistry, focus: FocusCoordinator, player: PlayerCoordinator, interface: InterfaceCoordinator,
         output: Output, pins: [AudioContext: String], coalesceMilliseconds: Int, scheduler: any Scheduler) throws(LoopError) {
        self.registry = registry
        self.focus = focus
        self.player = player
        self.interface = interface
        self.output = output
        self.pins = pins
        self.scheduler = scheduler
        nowPlayingNotices = try NotificationCoalescer(scheduler: scheduler, windowMilliseconds: coalesceMilliseconds)
        queueNotices = try NotificationCoalescer(scheduler: scheduler, windowMilliseconds: coalesceMilliseconds)
        uiNotices = try NotificationCoalescer(scheduler: scheduler, windowMilliseconds: EventPublisher.uiCoalesceMilliseconds)
        nowPlayingNotices.send = { [unowned self] in publish("nowPlaying.changed", player.center.nowPlayingJSON(now: scheduler.now)) }
        queueNotices.send = { [unowned self] in publish("queue.changed", player.center.queueJSON) }
        uiNotices.send = { [unowned self] in publish("ui.changed", UIMethods.state(interface, player: player, scheduler: scheduler)) }
    }

    func appsChanged() { publish("apps.changed", AppsMethods.list(registry, focus: focus)) }
    func sinksChanged() { publish("sinks.changed", ["sinks": SinksMethods.list(output, pins: pins)]) }
    func volumeChanged() { publish("volume.changed", VolumeMethods.state(focus.session)) }
    func interfaceChanged() { uiNotices.changed() }

    /// Now playing or the queue changed; the screen too when it shows now playing.
    func playerChanged(_ change: NowPlayingCenter.Change) {
        if change.contains(.info) {
            nowPlayingNotices.changed()
            if interface.showsNowPlaying { uiNotices.changed() }
        }
        if change.contains(.queue) { queueNotices.changed() }
    }

    /// `session.changed`: the state as `session.get` has it, plus what changed for whom, whenever
    /// either is new.
    func sessionChanged(_ changes: [(owner: String, change: String)]) {
        let state = SessionMethods.state(focus)
        guard state != publishedSession || !changes.isEmpty, case .object(var payload) = state else { return }
        publishedSession = state
        payload["changes"] = .array(changes.map { ["owner": .string($0.owner), "change": .string($0.change)] })
        publish("session.changed", .object(payload))
    }

    func close() {
        nowPlayingNotices.close()
        queueNotices.close()
        uiNotices.close()
    }

    private func publish(_ topic: String, _ payload: JSONValue) {
        guard case .object(let members) = payload else { preconditionFailure("\(topic): a notification's payload is an object") }
        hub.publish(topic, members)
    }
}
