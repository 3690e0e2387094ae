import Glibc

/// JSON text being written through a pointer into storage that doubles as it fills: each write
/// reserves its worst case once and then stores bytes unchecked.
struct JSONWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    /// Significant digits for reals, or nil for all of them (they read back equal).
    let realPrecision: Int?

    /// Storage from malloc and realloc: Swift's `allocate` goes through posix_memalign on Linux,
    /// five times malloc's instructions, and every answer makes a writer.
    init(capacity: Int = 512, realPrecision: Int? = nil) {
        self.capacity = max(capacity, 16)
        guard let storage = malloc(self.capacity) else { fatalError("out of memory") }
        base = storage.bindMemory(to: UInt8.self, capacity: self.capacity)
        self.realPrecision = realPrecision
    }

    deinit { free(base) }

    /// The text written.
    var string: String {
        String(unsafeUninitializedCapacity: count) { buffer in
            buffer.baseAddress!.update(from: base, count: count)
            return count
        }
    }

    /// The bytes written, appended to `bytes`.
    func append(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
    }

    /// Room for `more` bytes: a compare inlined into every write, the growth out of line.
    @inline(__always)
    private mutating func reserve(_ more: Int) {
        if count + more > capacity { grow(more) }
    }

    @inline(never)
    private mutating func grow(_ more: Int) {
        let grown = max(capacity * 2, count + more)
        guard let storage = realloc(base, grown) else { fatalError("out of memory") }
        base = storage.bindMemory(to: UInt8.self, capacity: grown)
        capacity = grown
    }

    mutating func byte(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    mutating func text(_ text: StaticString) {
        reserve(text.utf8CodeUnitCount)
        (base + count).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        count += text.utf8CodeUnitCount
    }

    mutating func newline(indent: Int) {
        reserve(1 + indent)
        base[count] = 10
        (base + count + 1).update(repeating: UInt8(ascii: " "), count: indent)
        count += 1 + indent
    }

    /// Decimal digits straight into the output, without a String in between.
    mutating func integer(_ integer: Int64) {
        reserve(20)
        if integer < 0 {
            base[count] = UInt8(ascii: "-")
            count += 1
        }
        var magnitude = integer.magnitude, digits = 1, power: UInt64 = 10
        while digits < 20 && magnitude >= power {
            digits += 1
            power = power &* 10
        }
        var at = count + digits
        repeat {
            at -= 1
            base[at] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        count += digits
    }

    /// A real: null when not finite; with `realPrecision` significant digits (`%.*g`), kept
    /// recognisably real (`1.0`, not `1`), as jansson writes it.
    mutating func real(_ value: Double) {
        guard value.isFinite else { return text("null") }
        guard let realPrecision else {
            // A whole number below 2^53 is its digits and ".0", as `description` writes it, with no
            // string made (rates, skip intervals and volumes are whole).
            if value.magnitude < 9_007_199_254_740_992, value.rounded(.towardZero) == value, !(value == 0 && value.sign == .minus) {
                integer(Int64(value))
                return text(".0")
            }
            var description = value.description
            return description.withUTF8 { raw(UnsafeRawBufferPointer($0)) }
        }
        reserve(40)
        let written = withVaList([Int32(Swift.max(1, Swift.min(realPrecision, 17))), value]) {
            Int(vsnprintf(UnsafeMutableRawPointer(base + count).assumingMemoryBound(to: CChar.self), 40, "%.*g", $0))
        }
        let digits = UnsafeBufferPointer(start: base + count, count: Swift.min(written, 39))
        count += digits.count
        if !digits.contains(UInt8(ascii: ".")) && !digits.contains(UInt8(ascii: "e")) { text(".0") }
    }

    private mutating func raw(_ bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count)
        if bytes.count > 0 { UnsafeMutableRawPointer(base + count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
        count += bytes.count
    }

    /// A string in quotes, escaped per RFC 8259; eight bytes at a time while none needs an escape.
    mutating func string(_ string: String) {
        quoted(string, comma: false, colon: false)
    }

    /// An object member's key with the comma before it (unless `first`) and the colon after, in one write.
    mutating func key(_ key: String, first: Bool) {
        quoted(key, comma: !first, colon: true)
    }

    private mutating func quoted(_ string: String, comma: Bool, colon: Bool) {
        // Native strings (all that Deck builds or parses) lend their bytes without a copy.
        if string.utf8.withContiguousStorageIfAvailable({ quoted($0, comma: comma, colon: colon) }) == nil {
            var string = string
            string.withUTF8 { quoted($0, comma: comma, colon: colon) }
        }
    }

    /// A string's bytes, quoted and escaped, eight at a time: a word is stored whole and the
    /// output advanced past its clean bytes, so an escape costs one jump and a tail one gathered
    /// word. Stores go through a local pointer (through `base` the compiler reloads it each time).
    private mutating func quoted(_ source: UnsafeBufferPointer<UInt8>, comma: Bool, colon: Bool) {
        reserve(source.count * 6 + 12)  // the worst escapes, the quotes, comma and colon, and a word stored past the end
        var out = base + count
        if comma {
            out.pointee = UInt8(ascii: ",")
            out += 1
        }
        out.pointee = UInt8(ascii: "\"")
        out += 1
        if let from = source.baseAddress {
            var index = 0
            while index < source.count {
                let left = source.count - index
                let word: UInt64, specials: UInt64
                if left >= 8 {
                    word = UInt64(littleEndian: UnsafeRawPointer(from + index).loadUnaligned(as: UInt64.self))
                    specials = JSONWordScan.specials(word)
                } else {
                    word = JSONWordScan.tail(from + index, count: left)
                    specials = JSONWordScan.specials(word) & (1 &<< UInt64(left &* 8) &- 1)
                }
                UnsafeMutableRawPointer(out).storeBytes(of: word.littleEndian, as: UInt64.self)
                let clean = specials == 0 ? Swift.min(left, 8) : specials.trailingZeroBitCount >> 3
                out += clean
                index += clean
                if specials != 0 {
                    out = JSONWriter.escape(from[index], at: out)
                    index += 1
                }
            }
        }
        out.pointee = UInt8(ascii: "\"")
        out += 1
        if colon {
            out.pointee = UInt8(ascii: ":")
            out += 1
        }
        count = out - base
    }

    /// One escape at `out`, within room already reserved; returns where the next byte goes.
    private static func escape(_ byte: UInt8, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        out[0] = UInt8(ascii: "\\")
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out[1] = byte
        case 0x0A: out[1] = UInt8(ascii: "n")
        case 0x0D: out[1] = UInt8(ascii: "r")
        case 0x09: out[1] = UInt8(ascii: "t")
        default:
            let hex: StaticString = "0123456789abcdef"
            out[1] = UInt8(ascii: "u")
            out[2] = UInt8(ascii: "0")
            out[3] = UInt8(ascii: "0")
            out[4] = hex.utf8Start[Int(byte >> 4)]
            out[5] = hex.utf8Start[Int(byte & 15)]
            return out + 6
        }
        return out + 2
    }
}
