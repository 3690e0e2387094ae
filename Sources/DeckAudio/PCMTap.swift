import Synchronization

/// The mix before encoding, from the audio thread to the loop (the embedding API's PCM tap): a
/// one-second ring of interleaved stereo floats. A frame that does not fit is dropped and
/// counted, never waited for.
final class PCMTap: @unchecked Sendable {  // One producer (audio thread) and one consumer (loop); head/tail order access to `storage`.
    let capacity: Int
    private let storage: UnsafeMutablePointer<Float>
    private let head = Atomic<Int>(0)  // next sample to read; advanced by the consumer
    private let tail = Atomic<Int>(0)  // next sample to write; advanced by the producer
    /// Frames dropped because the loop had not taken the second before them.
    let droppedFrames = Atomic<Int>(0)

    init(samples: Int = 48_000 * 2) {
        capacity = samples
        storage = .allocate(capacity: samples)
    }

    deinit { storage.deallocate() }

    /// Appends `count` samples whole, or drops them. [producer]
    func write(_ samples: UnsafePointer<Float>, count: Int) {
        let write = tail.load(ordering: .relaxed)
        guard write + count - head.load(ordering: .acquiring) <= capacity else {
            droppedFrames.add(count / 2, ordering: .relaxed)
            return
        }
        let start = write % capacity, first = min(count, capacity - start)
        (storage + start).update(from: samples, count: first)
        if first < count { storage.update(from: samples + first, count: count - first) }
        tail.store(write + count, ordering: .releasing)
    }

    /// Hands what arrived to `body` in contiguous pieces (sample counts even), then frees it. [consumer]
    func read(_ body: (UnsafePointer<Float>, Int) -> Void) {
        let read = head.load(ordering: .relaxed), end = tail.load(ordering: .acquiring)
        guard end > read else { return }
        let start = read % capacity, first = min(end - read, capacity - start)
        body(storage + start, first)
        if first < end - read { body(storage, end - read - first) }
        head.store(end, ordering: .releasing)
    }
}
