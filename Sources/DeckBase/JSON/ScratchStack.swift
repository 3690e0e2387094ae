import Glibc

/// A stack the parser moves values onto and, a container at a time, off into an array of its
/// exact size: no copies, no reference counting on the way.
struct ScratchStack<Element>: ~Copyable {
    /// Allocated at the first push (a request has no arrays: its element stack never is), 16
    /// elements to start: small enough for malloc's per-thread cache.
    private var base: UnsafeMutablePointer<Element>?
    private var capacity = 0
    private(set) var count = 0

    /// Room for `capacity` elements from malloc: Swift's `allocate` goes through posix_memalign on
    /// Linux, five times malloc's instructions, and every parse makes three stacks.
    private static func storage(_ capacity: Int) -> UnsafeMutablePointer<Element> {
        guard let raw = malloc(capacity * MemoryLayout<Element>.stride) else { fatalError("out of memory") }
        return raw.bindMemory(to: Element.self, capacity: capacity)
    }

    var last: Element { base.unsafelyUnwrapped[count - 1] }

    mutating func push(_ element: consuming Element) {
        if count == capacity {
            let grownCapacity = Swift.max(16, capacity * 2)
            let grown = ScratchStack.storage(grownCapacity)
            if let base {
                grown.moveInitialize(from: base, count: count)
                free(base)
            }
            base = grown
            capacity = grownCapacity
        }
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count += 1
    }

    /// The elements from `start` up, moved into an array; the stack keeps those below. Up to four
    /// are moved into an array literal: its storage type is looked up once per program, where
    /// `Array(unsafeUninitializedCapacity:)` looks it up on every call (about 30 ns a container).
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
        free(base)
    }
}
