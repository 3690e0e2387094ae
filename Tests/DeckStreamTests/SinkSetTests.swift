import Testing
@testable import DeckStream

/// Each packet goes to the sinks that the routing of its generation names for its bus, whatever
/// sinks and routings changed since the last packet.
@Suite struct SinkSetTests {
    /// Which sink got which packet, by sample index.
    private final class Log {
        var entries: [String] = []
    }

    private func sink(_ name: String, _ log: Log) -> CallbackSink {
        CallbackSink(name: name) { log.entries.append("\(name):\($0.sampleIndex)") }
    }

    private func packet(_ index: Int64, bus: Int = 0, generation: Int = 0) -> EncodedPacket {
        EncodedPacket(bytes: [0xFC], sampleIndex: index, samples: 960, isLast: false, finalGranule: nil, preSkip: 312,
                      bus: bus, generation: generation)
    }

    @Test func aPacketReachesTheSinksItsRoutingNamesForItsBus() {
        let log = Log(), sinks = SinkSet()
        let front = sinks.add(sink("front", log), name: "front", kind: .speakers)
        let rear = sinks.add(sink("rear", log), name: "rear", kind: .speakers)
        sinks.route([front: 0, rear: 1], generation: 1, inFlight: false)
        sinks.deliver(packet(0, bus: 0, generation: 1))
        sinks.deliver(packet(1, bus: 1, generation: 1))
        #expect(log.entries == ["front:0", "rear:1"])
    }

    @Test func aSinkAddedOrRemovedBetweenPacketsIsHeardFromTheNextRouting() throws {
        let log = Log(), sinks = SinkSet()
        let front = sinks.add(sink("front", log), name: "front", kind: .speakers)
        sinks.route([front: 0], generation: 1, inFlight: false)
        sinks.deliver(packet(0, generation: 1))
        let rear = sinks.add(sink("rear", log), name: "rear", kind: .speakers)
        sinks.deliver(packet(1, generation: 1))  // no routing names the new sink yet
        sinks.route([front: 0, rear: 0], generation: 2, inFlight: true)
        sinks.deliver(packet(2, generation: 1))  // encoded under the old routing, still in flight
        sinks.deliver(packet(3, generation: 2))
        try sinks.remove(front)
        sinks.deliver(packet(4, generation: 2))
        #expect(log.entries == ["front:0", "front:1", "front:2", "front:3", "rear:3", "rear:4"])
    }

    @Test func aRoutingSetWhileIdleReplacesTheOneBefore() {
        let log = Log(), sinks = SinkSet()
        let front = sinks.add(sink("front", log), name: "front", kind: .speakers)
        let rear = sinks.add(sink("rear", log), name: "rear", kind: .speakers)
        sinks.route([front: 0], generation: 1, inFlight: false)
        sinks.deliver(packet(0, generation: 1))
        sinks.route([rear: 0], generation: 2, inFlight: false)
        sinks.deliver(packet(1, generation: 2))
        #expect(log.entries == ["front:0", "rear:1"])
    }
}
