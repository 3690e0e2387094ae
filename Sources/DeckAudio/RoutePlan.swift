/// Which mix (bus) each sink takes and what each bus carries. Audio falls in classes: class z <
/// `zones` is zone z's app audio, which goes to that zone's selected sinks; class `zones + k` is
/// the audio pinned to `pins[k]`, which goes to that sink only. Sinks that want the same classes
/// share a bus (one encoder). With one zone, class 0 is all app audio.
struct RoutePlan: Equatable {
    /// Per bus, the classes it mixes (one bit each); nil when the bus is idle.
    var buses: [UInt8?] = [1] + Array(repeating: nil, count: Mixer.maxBuses - 1)
    /// The bus each sink takes.
    var sinkBuses: [Int: Int] = [:]
    /// The sinks that have pinned audio, by name, in class order.
    var pins: [String] = []
    /// How many zones' app audio the classes start with.
    var zones = 1

    /// The buses that are encoded, one bit each.
    var activeBuses: UInt8 {
        buses.indices.reduce(0) { buses[$1] == nil ? $0 : $0 | 1 << $1 }
    }

    /// The buses a stream pinned to `pin` (nil: app audio) is mixed into, when it is app audio of
    /// the zones in `zones` (one bit each). A pin whose sink is not open counts as app audio, so
    /// the listener still hears it.
    func streamBuses(pin: String?, zones reach: UInt8 = 1) -> UInt8 {
        let classes = pin.flatMap { pins.firstIndex(of: $0) }.map { UInt8(1) << (zones + $0) } ?? reach
        return buses.indices.reduce(0) { mask, bus in
            guard let mixed = buses[bus], mixed & classes != 0 else { return mask }
            return mask | 1 << bus
        }
    }

    /// The plan for sinks of one zone: `selected` nil is every sink.
    static func make(sinks: [(id: Int, name: String)], selected: Set<String>?, pinnedTo names: Set<String>,
                     previous: RoutePlan) throws(RoutingError) -> RoutePlan {
        try make(sinks: sinks.map { ($0.id, $0.name, 0) }, zones: 1, selected: selected.map { [0: $0] } ?? [:], pinnedTo: names,
                 previous: previous)
    }

    /// The plan for these sinks, each in its zone, keeping each bus's sinks on it where the classes
    /// allow, so a sink's encoder changes only when its mix must. A zone with no selection (or
    /// one naming none of its open sinks) sends its app audio to every sink of the zone. Throws
    /// when the sinks need more different mixes than there are buses.
    static func make(sinks: [(id: Int, name: String, zone: Int)], zones: Int, selected: [Int: Set<String>], pinnedTo names: Set<String>,
                     previous: RoutePlan) throws(RoutingError) -> RoutePlan {
        var plan = RoutePlan(buses: Array(repeating: nil, count: Mixer.maxBuses))
        plan.zones = zones
        plan.pins = sinks.map(\.name).filter(names.contains)
        guard zones + plan.pins.count <= UInt8.bitWidth else { throw .tooManyClasses(zones: zones, pins: plan.pins.count) }
        let everySink = { (zone: Int) -> Bool in
            guard let chosen = selected[zone] else { return true }
            return !sinks.contains { $0.zone == zone && chosen.contains($0.name) }
        }
        var wants: [UInt8: [Int]] = [:]
        for sink in sinks {
            var classes: UInt8 = everySink(sink.zone) || selected[sink.zone]!.contains(sink.name) ? 1 << sink.zone : 0
            if let pin = plan.pins.firstIndex(of: sink.name) { classes |= 1 << (zones + pin) }
            wants[classes, default: []].append(sink.id)
        }
        if wants.isEmpty { wants[1] = [] }  // with no sink, bus 0 still runs: the output's end is a packet
        var unplaced = wants.keys.sorted()
        // A bus that already mixes the same classes keeps them; then a group takes the bus most of
        // its sinks were on; then any idle bus.
        for classes in unplaced {
            if let bus = previous.buses.indices.first(where: { previous.buses[$0] == classes && plan.buses[$0] == nil }) {
                plan.place(wants[classes]!, classes, on: bus)
                unplaced.removeAll { $0 == classes }
            }
        }
        for classes in unplaced {
            let former = wants[classes]!.compactMap { previous.sinkBuses[$0] }.filter { plan.buses[$0] == nil }
            let favourite = Dictionary(grouping: former, by: { $0 }).max { ($0.value.count, -$0.key) < ($1.value.count, -$1.key) }?.key
            guard let bus = favourite ?? plan.buses.firstIndex(where: { $0 == nil }) else {
                throw .tooManyMixes(needed: wants.count, buses: Mixer.maxBuses)
            }
            plan.place(wants[classes]!, classes, on: bus)
        }
        return plan
    }

    private mutating func place(_ sinks: [Int], _ classes: UInt8, on bus: Int) {
        buses[bus] = classes
        for sink in sinks { sinkBuses[sink] = bus }
    }
}

/// Why a routing cannot be made.
public enum RoutingError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooManyMixes(needed: Int, buses: Int)
    case tooManyClasses(zones: Int, pins: Int)

    public var description: String {
        switch self {
        case .tooManyMixes(let needed, let buses):
            "the sinks would need \(needed) different mixes and the output makes at most \(buses); pin fewer contexts to other sinks"
        case .tooManyClasses(let zones, let pins):
            "\(zones) zones and \(pins) pinned sinks are more kinds of audio than the output tells apart (8); use fewer"
        }
    }
}
