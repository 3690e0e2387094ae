import Synchronization

/// Encoded packets from the audio thread to the loop: fixed slots, lock-free, no allocation on the
/// producer side. The producer publishes a frame's packets (one per bus) at once, so the consumer
/// always sees whole frames. The consumer copies a slot out before releasing it.
package final class PacketRing: @unchecked Sendable {  // One producer (audio thread) and one consumer (loop); head/tail order all slot access.
    package struct Slot: BitwiseCopyable {
        var length = 0
        var sampleIndex: Int64 = 0
        var samples = 0
        var isLast = false
        var finalGranule: Int64 = 0
        var bus = 0
        var generation = 0
        var encodedAt = 0

        package init(length: Int = 0, sampleIndex: Int64 = 0, samples: Int = 0, isLast: Bool = false, finalGranule: Int64 = 0,
                     bus: Int = 0, generation: Int = 0, encodedAt: Int = 0) {
            self.length = length
            self.sampleIndex = sampleIndex
            self.samples = samples
            self.isLast = isLast
            self.finalGranule = finalGranule
            self.bus = bus
            self.generation = generation
            self.encodedAt = encodedAt
        }
    }

    let capacity: Int
    /// Bytes a slot holds: the encoder's largest packet.
    let slotBytes: Int
    private let bytes: UnsafeMutablePointer<UInt8>
    private let slots: UnsafeMutablePointer<Slot>
    private let head = Atomic<Int>(0)  // next slot to read; advanced by the consumer
    private let tail = Atomic<Int>(0)  // next slot to write; advanced by the producer

    package init(capacity: Int, slotBytes: Int) {
        self.capacity = capacity
        self.slotBytes = slotBytes
        bytes = .allocate(capacity: capacity * slotBytes)
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(), count: capacity)
    }

    deinit {
        bytes.deallocate()
        slots.deallocate()
    }

    /// Writes every page of the slots, so no later packet waits on a page fault for a slot not
    /// used before. [producer, before its first packet]
    package func writeEveryPage() {
        bytes.initialize(repeating: 0, count: capacity * slotBytes)
    }

    package var count: Int { tail.load(ordering: .acquiring) - head.load(ordering: .acquiring) }

    /// Whether `packets` more fit before the consumer frees slots. [producer]
    package func hasRoom(for packets: Int) -> Bool {
        tail.load(ordering: .relaxed) + packets - head.load(ordering: .acquiring) <= capacity
    }

    /// The buffer for the packet `ahead` places after the last published one; check `hasRoom` first. [producer]
    package func buffer(ahead: Int) -> UnsafeMutablePointer<UInt8> {
        bytes + ((tail.load(ordering: .relaxed) + ahead) % capacity) * slotBytes
    }

    /// Describes the packet written into `buffer(ahead:)`; it stays unseen until `publish`. [producer]
    package func stage(_ slot: Slot, ahead: Int) {
        slots[(tail.load(ordering: .relaxed) + ahead) % capacity] = slot
    }

    /// Makes the first `count` staged packets visible to the consumer, together. [producer]
    package func publish(_ count: Int) {
        tail.store(tail.load(ordering: .relaxed) + count, ordering: .releasing)
    }

    /// The oldest packet, copied out, or nil. Its bytes go into `spare`, which keeps them: given the
    /// same `spare` each time, a packet takes the last one's storage once every sink let go of it,
    /// so it costs no allocation. [consumer]
    package func pop(preSkip: Int, reusing spare: inout [UInt8]) -> EncodedPacket? {
        let read = head.load(ordering: .relaxed)
        guard read < tail.load(ordering: .acquiring) else { return nil }
        let slot = slots[read % capacity]
        let start = bytes + (read % capacity) * slotBytes
        // A sink still holding the last packet keeps it as it was: the removal then makes new storage.
        spare.removeAll(keepingCapacity: true)
        spare.append(contentsOf: UnsafeBufferPointer(start: start, count: slot.length))
        let packet = EncodedPacket(bytes: spare,
                                   sampleIndex: slot.sampleIndex, samples: slot.samples, isLast: slot.isLast,
                                   finalGranule: slot.isLast ? slot.finalGranule : nil, preSkip: preSkip,
                                   bus: slot.bus, generation: slot.generation, encodedAt: slot.encodedAt)
        head.store(read + 1, ordering: .releasing)
        return packet
    }
}
