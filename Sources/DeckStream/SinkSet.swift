/// A sink as `sinks.list` shows it.
public struct SinkInfo: Sendable, Equatable {
    public var id: Int
    public var uri: String
    public var name: String
    public var kind: SinkKind
    public var status: SinkStatus

    public init(id: Int, uri: String, name: String, kind: SinkKind, status: SinkStatus) {
        self.id = id
        self.uri = uri
        self.name = name
        self.kind = kind
        self.status = status
    }
}

/// The sinks the output feeds, each with an id and a name. Each sink takes the packets of one bus
/// (one mix), as the routing in force when they were encoded says. Loop-thread-confined.
public final class SinkSet {
    private struct Entry {
        var id: Int
        var name: String
        var kind: SinkKind
        var sink: any Sink
    }

    private var sinks: [Entry] = [] {
        didSet { targets = nil }
    }
    /// Sinks closed by `closeAll`, kept so their last writes can still be judged.
    private var closed: [any Sink] = []
    private var nextID = 1
    /// Which bus each sink takes, per routing generation, oldest first; packets still in flight
    /// from an older routing are delivered by its table, so every sink gets each frame once.
    private var routes: [(generation: Int, buses: [Int: Int])] = [(0, [:])] {
        didSet { targets = nil }
    }
    /// The oldest routing's sinks with their bus, in order, built at its first packet: a packet is
    /// matched by comparing buses, with no hashing per packet.
    private var targets: [(bus: Int, sink: any Sink)]?

    public init() {}

    /// Adds a sink; it takes packets once a routing names it.
    @discardableResult
    public func add(_ sink: any Sink, name: String, kind: SinkKind) -> Int {
        defer { nextID += 1 }
        sinks.append(Entry(id: nextID, name: name, kind: kind, sink: sink))
        return nextID
    }

    public func remove(_ id: Int) throws(SinkError) {
        guard let index = sinks.firstIndex(where: { $0.id == id }) else { throw .noSuchSink(id) }
        sinks.remove(at: index).sink.close()
    }

    /// How long packets may wait for the loop: the strictest sink's batch (nil without sinks).
    public var batchMilliseconds: Int? { sinks.lazy.map(\.sink.batchMilliseconds).min() }

    /// How many sinks there are, without building their descriptions.
    public var count: Int { sinks.count }

    public var list: [SinkInfo] { sinks.map { SinkInfo(id: $0.id, uri: $0.sink.uri, name: $0.name, kind: $0.kind, status: $0.sink.status) } }

    /// Which bus each sink takes from packets of `generation` on; without packets `inFlight` (the
    /// output is not running) older routings are forgotten.
    public func route(_ buses: [Int: Int], generation: Int, inFlight: Bool) {
        if !inFlight { routes = [] }
        routes.append((generation, buses))
    }

    public func deliver(_ packet: EncodedPacket) {
        while routes.count > 1 && routes[1].generation <= packet.generation { routes.removeFirst() }
        let targets = self.targets ?? makeTargets()
        for target in targets where target.bus == packet.bus {
            target.sink.deliver(packet)
            if packet.isLast { target.sink.finish() }
        }
    }

    private func makeTargets() -> [(bus: Int, sink: any Sink)] {
        let buses = routes[0].buses
        let made = sinks.compactMap { entry in buses[entry.id].map { (bus: $0, sink: entry.sink) } }
        targets = made
        return made
    }

    /// The packets handed over together have all been delivered.
    public func endBatch() { sinks.forEach { $0.sink.endBatch() } }

    public func closeAll() {
        sinks.forEach { $0.sink.close() }
        closed += sinks.map(\.sink)
        sinks = []
    }

    /// Whether what the output made was lost (at least in part) everywhere it went: sinks existed
    /// and each, open or closed by `closeAll`, has failed or counted errors. With no sinks at all
    /// nothing was lost: clients add them.
    public var outputLost: Bool {
        let all = sinks.map(\.sink) + closed
        return !all.isEmpty && all.allSatisfy { $0.status.failed || $0.status.errors > 0 }
    }
}
