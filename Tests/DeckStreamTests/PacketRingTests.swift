import Testing
@testable import DeckStream

/// The packet ring hands the loop each packet as its own bytes: a packet a sink keeps stays as it
/// was, and one no sink kept lends its storage to the next.
@Suite struct PacketRingTests {
    private func publish(_ ring: PacketRing, _ bytes: [UInt8], sampleIndex: Int64) {
        #expect(ring.hasRoom(for: 1))
        ring.buffer(ahead: 0).update(from: bytes, count: bytes.count)
        ring.stage(PacketRing.Slot(length: bytes.count, sampleIndex: sampleIndex, samples: 960), ahead: 0)
        ring.publish(1)
    }

    @Test func aPacketASinkKeptIsNotOverwrittenByTheNext() throws {
        let ring = PacketRing(capacity: 4, slotBytes: 16)
        var spare: [UInt8] = []
        publish(ring, [1, 2, 3], sampleIndex: 0)
        let kept = try #require(ring.pop(preSkip: 312, reusing: &spare))
        publish(ring, [9, 8, 7, 6], sampleIndex: 960)
        let next = try #require(ring.pop(preSkip: 312, reusing: &spare))
        #expect(kept.bytes == [1, 2, 3])
        #expect(next.bytes == [9, 8, 7, 6])
        #expect(next.sampleIndex == 960 && next.preSkip == 312)
        #expect(ring.pop(preSkip: 312, reusing: &spare) == nil)
    }

    @Test func aPacketNoSinkKeptLendsItsStorageToTheNext() throws {
        let ring = PacketRing(capacity: 4, slotBytes: 16)
        // Storage no fresh packet would have: the next packet is in it if it took it over.
        var spare = [UInt8](repeating: 0, count: 1_000)
        publish(ring, [4, 5], sampleIndex: 960)
        let next = try #require(ring.pop(preSkip: 0, reusing: &spare))
        #expect(next.bytes == [4, 5])
        #expect(next.bytes.capacity >= 1_000)
    }
}
