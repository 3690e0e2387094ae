import DeckAudio
import DeckBase
import DeckPlugins
import DeckSession

/// The car's audio zones and which zone each app plays in. A request names its zone; a plugin's
/// host calls go to the zone it plays in (the primary one until moved). Loop-thread-confined.
public final class ZoneSet {
    /// The zones, the primary one first.
    public let list: [Zone]
    /// Whether the config names zones. Without, answers and notifications carry no `zone` and are
    /// what they were before zones existed.
    public let isConfigured: Bool
    private let plugins: PluginDirectory
    private let output: Output
    private let logger: Logger
    /// The zone of each app moved or launched out of the primary zone, by plugin id.
    private var homes: [String: Int] = [:]
    /// Runs when an app changed zones (its id, the zone it left).
    var onMove: ((String, Zone) -> Void)?

    init(_ zones: [Zone], configured: Bool, plugins: PluginDirectory, output: Output, logger: Logger) {
        list = zones
        isConfigured = configured
        self.plugins = plugins
        self.output = output
        self.logger = logger
        let everyZone = UInt8((1 << zones.count) - 1)
        for zone in zones {
            let (index, shared) = (zone.index, zone.settings.sharedContexts)
            zone.player.claim = { [unowned self, unowned zone] in claim($0, for: zone) }
            zone.focus.isHome = { [unowned self] in home(of: $0) == index }
            zone.focus.reach = { shared.contains($0) ? everyZone : 1 << index }
            zone.focus.share = { [unowned self] change in
                for other in list where other.index != index { other.focus.mirror(change) }
            }
        }
    }

    public var primary: Zone { list[0] }

    /// Whether any zone's session is active (the output runs while one is).
    public var isActive: Bool { list.contains { $0.focus.session.isActive } }

    /// The zone with this id.
    public func zone(_ id: String) -> Zone? { list.first { $0.id == id } }

    /// The zone plugin `id` plays in.
    public func zone(ofPlugin id: String) -> Zone { list[home(of: id)] }

    /// The zone of the plugin with this instance number (the primary one while it is loading).
    func zone(ofInstance instance: Int) -> Zone {
        plugins.plugin(instance: instance).map { zone(ofPlugin: $0.id) } ?? primary
    }

    private func home(of id: String) -> Int { homes[id] ?? 0 }

    /// Whether plugin `id` has a stream in the mix (of whichever zone).
    public func isStreaming(_ id: String) -> Bool { output.hasStream(id) }

    /// Whether plugin `id` holds or awaits focus, or has a stream, in the zone it plays in.
    public func isPlaying(_ id: String) -> Bool {
        isStreaming(id) || zone(ofPlugin: id).focus.session.arbiter.holdsOrAwaits(.plugin(id))
    }

    /// Moves plugin `id` to `target` with what it plays: it lets go of focus in its zone and asks
    /// the same of `target`'s session; its stream (if open) is heard in `target` from the next
    /// frame, its now playing moves along. When `target` does not grant the request the app is
    /// told it lost focus (paused until granted when delayed).
    public func move(_ id: String, to target: Zone) {
        let source = zone(ofPlugin: id)
        guard source !== target else { return }
        let owner = FocusOwner.plugin(id)
        let arbiter = source.focus.session.arbiter
        let request = arbiter.holder(owner)?.request ?? arbiter.pending.flatMap { $0.owner == owner ? $0 : nil }
        let streaming = output.hasStream(id)
        source.focus.leave(owner)
        if source.player.center.owner == id { target.player.take(from: source.player) }
        rehome(id, from: source, to: target)
        guard let request else { return }
        let result = target.focus.requestFocus(request)
        if streaming { target.focus.adopt(owner, context: request.context) }
        switch result {
        case .granted: break
        case .delayed: plugins.plugin(id: id)?.notifyFocus(.lossTransient)
        case .rejected: plugins.plugin(id: id)?.notifyFocus(.loss)
        }
    }

    /// Places plugin `id` in `target` to play there; nil, or why not: it plays in another zone.
    func claim(_ id: String, for target: Zone) -> String? {
        let home = zone(ofPlugin: id)
        guard home === target || !isPlaying(id) else { return "\(id) plays in zone \(home.id); an app plays in one zone at a time" }
        place(id, in: target)
        return nil
    }

    /// Places plugin `id` in `target` before it plays (it plays nowhere now).
    func place(_ id: String, in target: Zone) {
        let source = zone(ofPlugin: id)
        guard source !== target else { return }
        rehome(id, from: source, to: target)
    }

    private func rehome(_ id: String, from source: Zone, to target: Zone) {
        homes[id] = target.index == 0 ? nil : target.index
        logger.info("zones", "\(id) moves from zone \(source.id) to zone \(target.id)")
        onMove?(id, source)
    }
}
