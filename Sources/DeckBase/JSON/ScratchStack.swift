import Glibc

/// A stack the parser moves values onto and, a container at a time, off into an array of its
/// exact size: no copies, no reference counting on the way.
struct ScratchStack<Element>: ~Copyable {
    /// The thread's storage for this kind of stack, taken at the first push and given back at the
    /// end (a request has no arrays: its element stack never takes any); else 16 elements to
    /// start: small enough for malloc's per-thread cache.
    private let slot: ScratchCache.Slot
    private var base: UnsafeMutablePointer<Element>?
    private var capacity = 0
    private(set) var count = 0

    init(_ slot: ScratchCache.Slot) { self.slot = slot }

    /// Room for `capacity` elements from malloc: Swift's `allocate` goes through posix_memalign on
    /// Linux, five times malloc's instructions.
    private static func storage(_ capacity: Int) -> UnsafeMutablePointer<Element> {
        guard let raw = malloc(capacity * MemoryLayout<Element>.stride) else { fatalError("out of memory") }
        return raw.bindMemory(to: Element.self, capacity: capacity)
    }

    var last: Element { base.unsafelyUnwrapped[count - 1] }

    /// Inlined into the parser: a compare and a store, the growth out of line.
    @inline(__always)
    mutating func push(_ element: consuming Element) {
        if count == capacity { grow() }
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count += 1
    }

    @inline(never)
    private mutating func grow() {
        if base == nil, let (storage, bytes) = ScratchCache.take(slot) {
            base = storage.bindMemory(to: Element.self, capacity: bytes / MemoryLayout<Element>.stride)
            capacity = bytes / MemoryLayout<Element>.stride
            if capacity > 0 { return }
        }
        let grownCapacity = Swift.max(16, capacity * 2)
        let grown = ScratchStack.storage(grownCapacity)
        if let base {
            grown.moveInitialize(from: base, count: count)
            free(base)
        }
        base = grown
        capacity = grownCapacity
    }

    /// The elements from `start` up, moved into an array; the stack keeps those below. Up to eight
    /// (most containers) are moved into an array literal: its storage type is looked up once per
    /// program, where `Array(unsafeUninitializedCapacity:)` looks it up on every call (about 30 ns
    /// a container).
    mutating func pop(from start: Int) -> [Element] {
        let taken = count - start
        guard taken > 0, let base else { return [] }
        let source = base + start
        count = start
        switch taken {
        case 1: return [source.move()]
        case 2: return [source.move(), (source + 1).move()]
        case 3: return [source.move(), (source + 1).move(), (source + 2).move()]
        case 4: return [source.move(), (source + 1).move(), (source + 2).move(), (source + 3).move()]
        case 5: return [source.move(), (source + 1).move(), (source + 2).move(), (source + 3).move(), (source + 4).move()]
        case 6:
            return [source.move(), (source + 1).move(), (source + 2).move(), (source + 3).move(), (source + 4).move(),
                    (source + 5).move()]
        case 7:
            return [source.move(), (source + 1).move(), (source + 2).move(), (source + 3).move(), (source + 4).move(),
                    (source + 5).move(), (source + 6).move()]
        case 8:
            return [source.move(), (source + 1).move(), (source + 2).move(), (source + 3).move(), (source + 4).move(),
                    (source + 5).move(), (source + 6).move(), (source + 7).move()]
        default: break
        }
        return [Element](unsafeUninitializedCapacity: taken) { buffer, initialized in
            buffer.baseAddress?.moveInitialize(from: source, count: taken)
            initialized = taken
        }
    }

    /// The elements from `start` up, in place: valid until the next push.
    func region(from start: Int) -> UnsafeMutableBufferPointer<Element> {
        UnsafeMutableBufferPointer(start: base.map { $0 + start }, count: count - start)
    }

    /// Forgets the elements from `start` up.
    mutating func drop(from start: Int) {
        base?.advanced(by: start).deinitialize(count: count - start)
        count = start
    }

    deinit {
        guard let base else { return }
        base.deinitialize(count: count)
        ScratchCache.give(slot, base, bytes: capacity * MemoryLayout<Element>.stride)
    }
}
