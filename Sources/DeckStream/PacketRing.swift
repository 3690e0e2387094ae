import Synchronization

/// Encoded packets from the audio thread to the loop: fixed slots, lock-free, no allocation on the
/// producer side. The consumer copies a slot out before releasing it.
package final class PacketRing: @unchecked Sendable {  // One producer (audio thread) and one consumer (loop); head/tail order all slot access.
    package struct Slot: BitwiseCopyable {
        var length = 0
        var sampleIndex: Int64 = 0
        var samples = 0
        var isLast = false
        var finalGranule: Int64 = 0

        package init(length: Int = 0, sampleIndex: Int64 = 0, samples: Int = 0, isLast: Bool = false, finalGranule: Int64 = 0) {
            self.length = length
            self.sampleIndex = sampleIndex
            self.samples = samples
            self.isLast = isLast
            self.finalGranule = finalGranule
        }
    }

    static let slotBytes = OpusEncoder.maxPacketBytes
    let capacity: Int
    private let bytes: UnsafeMutablePointer<UInt8>
    private let slots: UnsafeMutablePointer<Slot>
    private let head = Atomic<Int>(0)  // next slot to read; advanced by the consumer
    private let tail = Atomic<Int>(0)  // next slot to write; advanced by the producer

    package init(capacity: Int) {
        self.capacity = capacity
        bytes = .allocate(capacity: capacity * PacketRing.slotBytes)
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(), count: capacity)
    }

    deinit {
        bytes.deallocate()
        slots.deallocate()
    }

    package var count: Int { tail.load(ordering: .acquiring) - head.load(ordering: .acquiring) }

    /// The buffer to encode the next packet into, or nil when the ring is full. [producer]
    package func reserve() -> UnsafeMutablePointer<UInt8>? {
        let write = tail.load(ordering: .relaxed)
        guard write - head.load(ordering: .acquiring) < capacity else { return nil }
        return bytes + (write % capacity) * PacketRing.slotBytes
    }

    /// Publishes the packet written into the reserved buffer. [producer]
    package func commit(_ slot: Slot) {
        let write = tail.load(ordering: .relaxed)
        slots[write % capacity] = slot
        tail.store(write + 1, ordering: .releasing)
    }

    /// The oldest packet, copied out, or nil. [consumer]
    package func pop(preSkip: Int) -> EncodedPacket? {
        let read = head.load(ordering: .relaxed)
        guard read < tail.load(ordering: .acquiring) else { return nil }
        let slot = slots[read % capacity]
        let start = bytes + (read % capacity) * PacketRing.slotBytes
        let packet = EncodedPacket(bytes: Array(UnsafeBufferPointer(start: start, count: slot.length)),
                                   sampleIndex: slot.sampleIndex, samples: slot.samples, isLast: slot.isLast,
                                   finalGranule: slot.isLast ? slot.finalGranule : nil, preSkip: preSkip)
        head.store(read + 1, ordering: .releasing)
        return packet
    }
}
