/// Eight bytes of a JSON string checked at once (SWAR): which of them are a quote, a backslash
/// or a control character, the bytes that end a run a parser or writer can copy whole.
enum JSONWordScan {
    /// The high bit of each flagged byte of `word` (little-endian, first byte lowest). Only the
    /// lowest flag is exact (a borrow can flag a byte above a flagged one), which is all a scan
    /// for the first such byte needs.
    static func specials(_ word: UInt64) -> UInt64 {
        let quote = word ^ 0x2222_2222_2222_2222, backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
        return ((quote &- 0x0101_0101_0101_0101) & ~quote | (backslash &- 0x0101_0101_0101_0101) & ~backslash
            | (word &- 0x2020_2020_2020_2020) & ~word) & 0x8080_8080_8080_8080
    }

    /// The first `count` (0 to 7) bytes at `bytes`, the rest zero, read without touching a byte past them.
    static func tail(_ bytes: UnsafePointer<UInt8>, count: Int) -> UInt64 {
        let raw = UnsafeRawPointer(bytes)
        switch count {
        case 4...7:
            let low = UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
            let high = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)))
            return low | high &<< UInt64((count &- 4) &* 8)
        case 2...3:
            let low = UInt64(UInt16(littleEndian: raw.loadUnaligned(as: UInt16.self)))
            let high = UInt64(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)))
            return low | high &<< UInt64((count &- 2) &* 8)
        case 1: return UInt64(bytes.pointee)
        default: return 0
        }
    }
}
