import Glibc

/// A C string owned by Swift, freed with its box.
final class CStringBox: @unchecked Sendable {  // Immutable after init; only handed out as a read-only pointer.
    let string: String
    let pointer: UnsafeMutablePointer<CChar>

    init(_ string: String) {
        self.string = string
        pointer = strdup(string)
    }

    deinit { free(pointer) }
}
