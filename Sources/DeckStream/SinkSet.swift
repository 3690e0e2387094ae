/// A sink as `sinks.list` shows it.
public struct SinkInfo: Sendable, Equatable {
    public var id: Int
    public var uri: String
    public var status: SinkStatus

    public init(id: Int, uri: String, status: SinkStatus) {
        self.id = id
        self.uri = uri
        self.status = status
    }
}

/// The sinks the output feeds, each with an id; every packet goes to each of them in turn.
/// Loop-thread-confined.
public final class SinkSet {
    private var sinks: [(id: Int, sink: any Sink)] = []
    /// Sinks closed by `closeAll`, kept so their last writes can still be judged.
    private var closed: [any Sink] = []
    private var nextID = 1

    public init() {}

    @discardableResult
    public func add(_ sink: any Sink) -> Int {
        defer { nextID += 1 }
        sinks.append((nextID, sink))
        return nextID
    }

    public func remove(_ id: Int) throws(SinkError) {
        guard let index = sinks.firstIndex(where: { $0.id == id }) else { throw .noSuchSink(id) }
        sinks.remove(at: index).sink.close()
    }

    public var list: [SinkInfo] { sinks.map { SinkInfo(id: $0.id, uri: $0.sink.uri, status: $0.sink.status) } }

    public func deliver(_ packet: EncodedPacket) {
        for (_, sink) in sinks {
            sink.deliver(packet)
            if packet.isLast { sink.finish() }
        }
    }

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
