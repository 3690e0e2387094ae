import Synchronization

/// Interleaved stereo frames handed from the decode thread (the one writer) to the render thread
/// (the one reader). A writer starting over (a new item, a seek) opens a generation; the reader
/// skips to its start, so what was queued before is never played.
final class SampleRing: @unchecked Sendable {  // `storage` is written only ahead of `written` and read only behind it, ordered by the atomics.
    let capacity: Int
    private let storage: UnsafeMutablePointer<Float>
    /// Frames written and read since the ring was made (they only grow).
    let written = Atomic<Int>(0)
    let read = Atomic<Int>(0)
    /// The newest generation and the frame it starts at.
    private let generation = Atomic<Int>(0)
    private let generationStart = Atomic<Int>(0)
    /// The reader's generation (reader only).
    private var readerGeneration = 0

    init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity * 2)
        storage.initialize(repeating: 0, count: capacity * 2)
    }

    deinit { storage.deallocate() }

    /// Writer: what is written from now on belongs to a new generation; returns its number.
    @discardableResult
    func beginGeneration() -> Int {
        generationStart.store(written.load(ordering: .relaxed), ordering: .releasing)
        return generation.add(1, ordering: .releasing).newValue
    }

    /// Writer: frames there is room for now.
    var space: Int { capacity - (written.load(ordering: .relaxed) - read.load(ordering: .acquiring)) }

    /// Writer: copies up to `frames` frames in; returns how many fitted.
    func write(_ samples: UnsafePointer<Float>, frames: Int) -> Int {
        let start = written.load(ordering: .relaxed)
        let count = min(frames, space)
        for offset in 0..<count {
            let slot = (start + offset) % capacity
            storage[slot * 2] = samples[offset * 2]
            storage[slot * 2 + 1] = samples[offset * 2 + 1]
        }
        written.store(start + count, ordering: .releasing)
        return count
    }

    /// Reader: moves to the newest generation when one began; true when it did.
    func catchUp() -> Bool {
        let newest = generation.load(ordering: .acquiring)
        guard newest != readerGeneration else { return false }
        readerGeneration = newest
        let start = generationStart.load(ordering: .acquiring)
        if start > read.load(ordering: .relaxed) { read.store(start, ordering: .releasing) }
        return true
    }

    /// Reader: frames ready to read.
    var available: Int { written.load(ordering: .acquiring) - read.load(ordering: .relaxed) }

    /// Reader: frames ready to read once caught up with the newest generation (`catchUp`).
    var availableInNewest: Int {
        var start = read.load(ordering: .relaxed)
        if generation.load(ordering: .acquiring) != readerGeneration { start = max(start, generationStart.load(ordering: .acquiring)) }
        return written.load(ordering: .acquiring) - start
    }

    /// Reader: copies up to `frames` frames out; returns how many there were.
    func read(into samples: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        let start = read.load(ordering: .relaxed)
        let count = min(frames, available)
        for offset in 0..<count {
            let slot = (start + offset) % capacity
            samples[offset * 2] = storage[slot * 2]
            samples[offset * 2 + 1] = storage[slot * 2 + 1]
        }
        read.store(start + count, ordering: .releasing)
        return count
    }
}
