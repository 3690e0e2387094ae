import Synchronization

/// A single-producer, single-consumer ring of plain values: lock-free and allocation-free after
/// init, so the audio thread can use either end.
final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {  // One producer and one consumer thread; `head`/`tail` order their accesses to `storage`.
    let capacity: Int
    private let storage: UnsafeMutablePointer<Element>
    private let head = Atomic<Int>(0)  // next index to read; written by the consumer
    private let tail = Atomic<Int>(0)  // next index to write; written by the producer

    init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// Appends `element`; false when the ring is full. [producer]
    @discardableResult
    func push(_ element: Element) -> Bool {
        let write = tail.load(ordering: .relaxed)
        guard write - head.load(ordering: .acquiring) < capacity else { return false }
        storage[write % capacity] = element
        tail.store(write + 1, ordering: .releasing)
        return true
    }

    /// Removes the oldest element, or nil when empty. [consumer]
    func pop() -> Element? {
        let read = head.load(ordering: .relaxed)
        guard read < tail.load(ordering: .acquiring) else { return nil }
        let element = storage[read % capacity]
        head.store(read + 1, ordering: .releasing)
        return element
    }

    var count: Int { tail.load(ordering: .acquiring) - head.load(ordering: .acquiring) }
}
