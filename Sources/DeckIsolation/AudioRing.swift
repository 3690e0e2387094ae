import CProcess
import Glibc
import Synchronization

/// Frames of an isolated plugin's audio in shared memory (a memfd both processes map): a
/// single-producer, single-consumer ring of `slots` frames. The host process renders ahead into
/// it and rings `filled`; the runtime's audio thread takes one frame per mix and rings `space`.
package final class AudioRing: @unchecked Sendable {  // One writer (the host's audio thread) and one reader (the runtime's); the indices order the slots.
    package static let headerBytes = 64
    private static let magic: UInt32 = 0x4445_434B  // "DECK"
    package let frames: Int
    package let slots: Int
    package let memory: Int32
    /// Host → runtime: a frame was written.
    package let filled: Int32
    /// Runtime → host: a slot was freed (or the writer should look again).
    package let space: Int32
    private let base: UnsafeMutableRawPointer
    private let size: Int

    package static func byteCount(frames: Int, slots: Int) -> Int { headerBytes + slots * slotBytes(frames: frames) }
    private static func slotBytes(frames: Int) -> Int { 16 + frames * 2 * MemoryLayout<Float>.size }

    /// Creates the ring's memory and wake-ups (runtime side).
    package convenience init(frames: Int, slots: Int, name: String) throws(WireError) {
        let memory = deck_memfd(name)
        guard memory >= 0 else { throw .io("memfd_create: \(String(cString: strerror(errno)))") }
        let filled = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)), space = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard filled >= 0, space >= 0, ftruncate(memory, off_t(AudioRing.byteCount(frames: frames, slots: slots))) == 0 else {
            let reason = String(cString: strerror(errno))
            [memory, filled, space].filter { $0 >= 0 }.forEach { _ = Glibc.close($0) }
            throw .io("audio ring: \(reason)")
        }
        try self.init(memory: memory, filled: filled, space: space, frames: frames, slots: slots, create: true)
    }

    /// Maps a ring whose descriptors were inherited (host side) or just made; `create` writes the header.
    package init(memory: Int32, filled: Int32, space: Int32, frames: Int, slots: Int, create: Bool = false) throws(WireError) {
        self.memory = memory
        self.filled = filled
        self.space = space
        self.frames = frames
        self.slots = slots
        size = AudioRing.byteCount(frames: frames, slots: slots)
        var info = stat()
        guard fstat(memory, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) >= size else {
            throw .io("the audio ring's memory (descriptor \(memory)) is not a \(size)-byte shared-memory file")
        }
        guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0), mapped != MAP_FAILED else {
            throw .io("mmap of the audio ring: \(String(cString: strerror(errno)))")
        }
        base = mapped
        if create {
            base.storeBytes(of: AudioRing.magic, as: UInt32.self)
            (base + 4).storeBytes(of: UInt32(frames), as: UInt32.self)
            (base + 8).storeBytes(of: UInt32(slots), as: UInt32.self)
            index(16).initialize(to: Atomic(0))
            index(24).initialize(to: Atomic(0))
        } else {
            guard base.load(as: UInt32.self) == AudioRing.magic, (base + 4).load(as: UInt32.self) == UInt32(frames),
                  (base + 8).load(as: UInt32.self) == UInt32(slots) else { throw .invalid("the audio ring's header does not match") }
        }
    }

    /// Keeps the ring's pages in memory; why not, or nil.
    func lock() -> String? {
        mlock(base, size) == 0 ? nil : "mlock of the audio ring: \(String(cString: strerror(errno)))"
    }

    deinit {
        munmap(base, size)
        [memory, filled, space].forEach { _ = Glibc.close($0) }
    }

    private func index(_ offset: Int) -> UnsafeMutablePointer<Atomic<UInt64>> {
        (base + offset).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    private var writeIndex: UnsafeMutablePointer<Atomic<UInt64>> { index(16) }
    private var readIndex: UnsafeMutablePointer<Atomic<UInt64>> { index(24) }

    private func slot(_ number: UInt64) -> UnsafeMutableRawPointer {
        base + AudioRing.headerBytes + Int(number % UInt64(slots)) * AudioRing.slotBytes(frames: frames)
    }

    /// Frames written and not yet read.
    package var queued: Int { Int(writeIndex.pointee.load(ordering: .acquiring) &- readIndex.pointee.load(ordering: .acquiring)) }

    // Writer (host process)

    /// Whether a slot is free. [writer]
    package var hasRoom: Bool { queued < slots }

    /// Fills the next free slot with `render(out, frames)` (frames written) and publishes it. [writer]
    package func write(_ render: (UnsafeMutablePointer<Float>, Int) -> Int) {
        let number = writeIndex.pointee.load(ordering: .relaxed)
        let slot = slot(number)
        let samples = (slot + 16).assumingMemoryBound(to: Float.self)
        let count = max(0, min(render(samples, frames), frames))
        slot.storeBytes(of: UInt32(count), as: UInt32.self)
        writeIndex.pointee.store(number &+ 1, ordering: .releasing)
        AudioRing.ring(filled)
    }

    /// Forgets unread frames; only while no reader pulls (the stream is closed). [writer]
    package func discardUnread() { writeIndex.pointee.store(readIndex.pointee.load(ordering: .acquiring), ordering: .releasing) }

    // Reader (the runtime's audio thread)

    /// Copies the oldest frame into `out` and frees its slot; nil when none is there. [reader]
    package func read(into out: UnsafeMutablePointer<Float>) -> Int? {
        let number = readIndex.pointee.load(ordering: .relaxed)
        guard writeIndex.pointee.load(ordering: .acquiring) != number else { return nil }
        let slot = slot(number)
        let count = min(Int(slot.load(as: UInt32.self)), frames)
        out.update(from: (slot + 16).assumingMemoryBound(to: Float.self), count: count * 2)
        readIndex.pointee.store(number &+ 1, ordering: .releasing)
        // A deep ring (freewheel) wakes its writer once it is half empty, to render a burst,
        // rather than once a frame: each wake costs more than a frame of most renders.
        if queued <= slots / 2 { AudioRing.ring(space) }
        return count
    }

    /// Adds one to an eventfd's counter.
    package static func ring(_ descriptor: Int32) {
        var one: UInt64 = 1
        _ = Glibc.write(descriptor, &one, 8)
    }

    /// Waits up to `milliseconds` (-1: without end) for `descriptor` to be rung, then clears it; false on timeout.
    @discardableResult
    package static func wait(_ descriptor: Int32, milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, milliseconds) > 0 else { return false }
        var count: UInt64 = 0
        _ = Glibc.read(descriptor, &count, 8)
        return true
    }

    /// Clears an eventfd without waiting.
    package static func drain(_ descriptor: Int32) {
        var count: UInt64 = 0
        _ = Glibc.read(descriptor, &count, 8)
    }
}
