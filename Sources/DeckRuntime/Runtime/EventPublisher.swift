import DeckBase
import DeckControl
import DeckNowPlaying
import DeckPlugins

/// Publishes the runtime's notifications on its event hub, each payload as its `*.get` method
/// answers, built only for a topic a connection subscribes to: `nowPlaying.changed`,
/// `queue.changed` and `ui.changed` at most once per window, `session.changed` once per change
/// of `session.get` or of someone's focus, and `volume.changed` also when the group the volume
/// keys act on changes. A zone's notifications carry its id (`"zone"`).
/// Loop-thread-confined.
final class EventPublisher {
    /// Topics the runtime publishes.
    static let topics = ["apps.changed", "session.changed", "sinks.changed", "volume.changed",
                         "nowPlaying.changed", "queue.changed", "ui.changed"]
    /// `ui.changed` at most once per this window (a plugin refreshing rows in a loop).
    static let uiCoalesceMilliseconds = 50

    let hub = EventHub(topics: EventPublisher.topics)
    private let registry: PluginRegistry
    private let zones: ZoneSet
    private let interface: InterfaceCoordinator
    private let output: Output
    private let pins: [AudioContext: String]
    private let scheduler: any Scheduler
    /// Per zone, in zone order.
    private let nowPlayingNotices: [NotificationCoalescer]
    private let queueNotices: [NotificationCoalescer]
    private let uiNotices: [NotificationCoalescer]
    /// What each zone's last `session.changed` said, so every change of `session.get` is published once.
    private var publishedSessions: [Int: JSONValue] = [:]
    /// The group each zone's volume keys acted on at its last `volume.changed`.
    private var publishedKeys: [Int: String] = [:]

    init(registry: PluginRegistry, zones: ZoneSet, interface: InterfaceCoordinator, output: Output, pins: [AudioContext: String],
         coalesceMilliseconds: Int, scheduler: any Scheduler) throws(LoopError) {
        self.registry = registry
        self.zones = zones
        self.interface = interface
        self.output = output
        self.pins = pins
        self.scheduler = scheduler
        var nowPlaying: [NotificationCoalescer] = [], queue: [NotificationCoalescer] = [], ui: [NotificationCoalescer] = []
        for _ in zones.list {
            nowPlaying.append(try NotificationCoalescer(scheduler: scheduler, windowMilliseconds: coalesceMilliseconds))
            queue.append(try NotificationCoalescer(scheduler: scheduler, windowMilliseconds: coalesceMilliseconds))
            ui.append(try NotificationCoalescer(scheduler: scheduler, windowMilliseconds: EventPublisher.uiCoalesceMilliseconds))
        }
        (nowPlayingNotices, queueNotices, uiNotices) = (nowPlaying, queue, ui)
        for zone in zones.list {
            publishedKeys[zone.index] = zone.focus.activeVolumeGroup
            let center = zone.player.center
            nowPlayingNotices[zone.index].send = { [unowned self] in publish("nowPlaying.changed", center.nowPlayingJSON(now: scheduler.now), zone: zone) }
            queueNotices[zone.index].send = { [unowned self] in publish("queue.changed", center.queueJSON, zone: zone) }
            uiNotices[zone.index].send = { [unowned self] in publish("ui.changed", UIMethods.state(interface, zone: zone, scheduler: scheduler), zone: zone) }
        }
    }

    func appsChanged() { publish("apps.changed", AppsMethods.list(registry, zones: zones)) }
    func sinksChanged() { publish("sinks.changed", ["sinks": SinksMethods.list(output, pins: pins, zones: zones)]) }
    func volumeChanged(_ zone: Zone) {
        publishedKeys[zone.index] = zone.focus.activeVolumeGroup
        publish("volume.changed", VolumeMethods.state(zone.focus), zone: zone)
    }
    func interfaceChanged() { uiNotices.forEach { $0.changed() } }

    /// Now playing or the queue of `zone` changed; the screen too when it shows the primary zone's.
    func playerChanged(_ zone: Zone, _ change: NowPlayingCenter.Change) {
        if change.contains(.info) {
            nowPlayingNotices[zone.index].changed()
            if interface.showsNowPlaying(zone: zone.index) { uiNotices[zone.index].changed() }
        }
        if change.contains(.queue) { queueNotices[zone.index].changed() }
    }

    /// `session.changed`: the zone's state as `session.get` has it, plus what changed for whom,
    /// whenever either is new.
    func sessionChanged(_ zone: Zone, _ changes: [(owner: String, change: String)]) {
        if zone.focus.activeVolumeGroup != publishedKeys[zone.index] { volumeChanged(zone) }  // a call began: the keys step its group
        guard hub.isWanted("session.changed") else { return }
        let state = SessionMethods.state(zone.focus)
        guard state != publishedSessions[zone.index] || !changes.isEmpty, case .object(var payload) = state else { return }
        publishedSessions[zone.index] = state
        payload["changes"] = .array(changes.map { ["owner": .string($0.owner), "change": .string($0.change)] })
        publish("session.changed", .object(payload), zone: zone)
    }

    func close() {
        nowPlayingNotices.forEach { $0.close() }
        queueNotices.forEach { $0.close() }
        uiNotices.forEach { $0.close() }
    }

    /// Publishes on `topic`, the payload built only when someone subscribed; a zone's notification
    /// names it when the config has zones.
    private func publish(_ topic: String, _ payload: @autoclosure () -> JSONValue, zone: Zone? = nil) {
        guard hub.isWanted(topic) else { return }
        guard case .object(var members) = payload() else { preconditionFailure("\(topic): a notification's payload is an object") }
        if let zone, zones.isConfigured { members["zone"] = .string(zone.id) }
        hub.publish(topic, members)
    }
}
