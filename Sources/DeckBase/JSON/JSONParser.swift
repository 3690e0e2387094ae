import Glibc

/// RFC 8259 text straight into a `JSONValue`, in one pass: strict as jansson is with
/// JSON_DECODE_ANY | JSON_REJECT_DUPLICATES (valid UTF-8, no NUL, no lone surrogates, integers in
/// 64 bits, finite reals), which a test holds it to on the fuzz corpora; or, marking, reading the
/// values it cannot hold as NaN.
struct JSONParser: ~Copyable {
    private let text: UnsafeRawBufferPointer
    private let maxDepth: Int
    /// Whether a value Deck cannot hold is read as NaN (`JSONValue.parseMarkingUnrepresentable`) rather than refused.
    private let marksUnrepresentable: Bool
    /// Set when the string just read held an escape Deck cannot hold (marking only), read as U+FFFD.
    private var unrepresentableString = false
    private var at = 0
    private var depth = 0
    /// Elements and members of the containers being read, reused so each container is allocated once, at its size.
    private var elements = ScratchStack<JSONValue>(.elements)
    private var members = ScratchStack<JSONObject.Member>(.members)
    /// The keys of the objects being read, beside their members.
    private var keys = ScratchStack<KeySpan>(.keys)
    private var unescaped: [UInt8] = []
    /// Where the last string read stands in the text, when it had no escapes (so keys compare as bytes).
    private var lastRaw: Range<Int>?

    init(_ text: UnsafeRawBufferPointer, maxDepth: Int, marksUnrepresentable: Bool = false) {
        self.text = text
        self.maxDepth = maxDepth
        self.marksUnrepresentable = marksUnrepresentable
    }

    /// The document: one value and nothing but whitespace after it.
    mutating func document() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try self.value()
        skipWhitespace()
        if at < text.count { throw failure("end of text expected after the value", at: at) }
        return value
    }

    private mutating func value() throws(JSONParseError) -> JSONValue {
        guard at < text.count else { throw failure("a value expected, the text ended", at: at) }
        switch text[at] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""):
            let string = try string()
            guard unrepresentableString else { return .string(string) }
            unrepresentableString = false
            return .double(.nan)
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("invalid token", at: at)
        }
    }

    /// Steps into a container at its opening byte; false, stepped out again, when `closing`
    /// follows at once (an empty container).
    @inline(__always)
    private mutating func enter(closing: UInt8) throws(JSONParseError) -> Bool {
        depth += 1
        if depth > maxDepth {
            throw JSONParseError(kind: .tooDeep, line: 0, column: 0, message: "JSON nesting deeper than the limit of \(maxDepth) levels")
        }
        at += 1
        skipWhitespace()
        guard at < text.count && text[at] == closing else { return true }
        at += 1
        depth -= 1
        return false
    }

    private mutating func array() throws(JSONParseError) -> JSONValue {
        guard try enter(closing: UInt8(ascii: "]")) else { return .array([]) }
        defer { depth -= 1 }
        let start = elements.count
        repeat {
            elements.push(try value())
        } while try next(closing: UInt8(ascii: "]"))
        return .array(elements.pop(from: start))
    }

    private mutating func object() throws(JSONParseError) -> JSONValue {
        guard try enter(closing: UInt8(ascii: "}")) else { return .object(JSONObject()) }
        defer { depth -= 1 }
        let start = members.count
        let keyStart = keys.count
        defer { keys.drop(from: keyStart) }
        var ordered = true
        repeat {
            guard at < text.count, text[at] == UInt8(ascii: "\"") else { throw failure("a string key expected", at: at) }
            let keyAt = at
            let key = try string()
            let current = KeySpan(at: keyAt, raw: lastRaw)
            if members.count > start {
                let previous = keys.last
                let order = if let x = previous.raw, let y = current.raw {
                    JSONObject.order(UnsafeRawBufferPointer(rebasing: text[x]), UnsafeRawBufferPointer(rebasing: text[y]))
                } else {
                    JSONObject.order(members.last.key, key)
                }
                if order == 0 { throw failure("duplicate object key \"\(key)\"", at: current.at) }
                if order > 0 { ordered = false }
            }
            keys.push(current)
            skipWhitespace()
            guard at < text.count, text[at] == UInt8(ascii: ":") else { throw failure("':' expected after an object key", at: at) }
            at += 1
            skipWhitespace()
            let keyMarked = unrepresentableString
            unrepresentableString = false
            let value = try value()
            members.push(JSONObject.Member(key, keyMarked ? .double(.nan) : value))  // a key Deck cannot hold marks its member
        } while try next(closing: UInt8(ascii: "}"))
        if !ordered { try sort(members.region(from: start), keys: keys.region(from: keyStart)) }
        return .object(JSONObject(ordered: members.pop(from: start)))
    }

    /// After an element or member: true at a comma (another follows), false at `closing`.
    @inline(__always)
    private mutating func next(closing: UInt8) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard at < text.count else { throw failure("',' or '\(Character(Unicode.Scalar(closing)))' expected, the text ended", at: at) }
        let byte = text[at]
        at += 1
        if byte == closing { return false }
        guard byte == UInt8(ascii: ",") else { throw failure("',' or '\(Character(Unicode.Scalar(closing)))' expected", at: at - 1) }
        skipWhitespace()
        return true
    }

    /// Puts members read out of key order in order where they stand on the stack (swapping in
    /// place when few, as requests' are), with their keys' places, refusing a key seen twice at its
    /// second place.
    private func sort(_ object: UnsafeMutableBufferPointer<JSONObject.Member>, keys: UnsafeMutableBufferPointer<KeySpan>) throws(JSONParseError) {
        func order(_ a: Int, _ b: Int) -> Int {
            if let x = keys[a].raw, let y = keys[b].raw {
                return JSONObject.order(UnsafeRawBufferPointer(rebasing: text[x]), UnsafeRawBufferPointer(rebasing: text[y]))
            }
            return JSONObject.order(object[a].key, object[b].key)
        }
        if object.count <= 32 {
            for index in 1..<object.count {
                var place = index
                while place > 0 && order(place - 1, place) > 0 {
                    object.swapAt(place - 1, place)
                    keys.swapAt(place - 1, place)
                    place -= 1
                }
            }
        } else {
            let sorted = object.indices.sorted { order($0, $1) < 0 }
            let members = sorted.map { object[$0] }, places = sorted.map { keys[$0] }
            for index in sorted.indices {
                object[index] = members[index]
                keys[index] = places[index]
            }
        }
        var duplicate: Int?
        for index in object.indices.dropFirst() where order(index - 1, index) == 0 {
            let second = max(keys[index - 1].at, keys[index].at)
            duplicate = min(duplicate ?? second, second)
        }
        if let duplicate {
            var copy = JSONParser(text, maxDepth: maxDepth)
            copy.at = duplicate
            let key = (try? copy.string()) ?? ""
            throw failure("duplicate object key \"\(key)\"", at: duplicate)
        }
    }

    /// A string from its opening quote: runs without escapes are copied whole; UTF-8 is checked.
    /// The scan keeps its place in a local, so the loop does not store it back each word.
    private mutating func string() throws(JSONParseError) -> String {
        let text = self.text, start = at + 1
        var index = start
        // All ones while the run is ASCII, so a byte with its high bit set stops the word scan once.
        var asciiMask: UInt64 = ~0
        while true {
            // Eight bytes at a time to the first quote, backslash, control or (while ASCII) non-ASCII byte.
            while index + 8 <= text.count {
                let word = UInt64(littleEndian: text.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let special = JSONWordScan.specials(word) | word & asciiMask & 0x8080_8080_8080_8080
                if special != 0 {
                    index += special.trailingZeroBitCount >> 3
                    break
                }
                index += 8
            }
            guard index < text.count else { throw failure("unterminated string", at: index) }
            let byte = text[index]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeRawBufferPointer(rebasing: text[start..<index])
                lastRaw = start..<index
                at = index + 1
                if asciiMask == 0 { try checkUTF8(run, from: start) }
                return JSONParser.string(run, readable: text.count - start)
            }
            if byte == UInt8(ascii: "\\") {
                at = index
                return try escapedString(from: start)
            }
            if byte < 0x20 { throw failure("control character 0x\(String(byte, radix: 16)) in a string", at: index) }
            if byte >= 0x80 { asciiMask = 0 }
            index += 1
        }
    }

    /// The bytes of `run` as a String, the text holding `readable` bytes from its start on. Up to
    /// eight are stored as one word, so the small string reading them back as a word gets them
    /// from the store (a copy byte by byte made that read wait some 15 cycles).
    private static func string(_ run: UnsafeRawBufferPointer, readable: Int) -> String {
        guard run.count <= 8, let bytes = run.baseAddress else {
            return String(unsafeUninitializedCapacity: run.count) { UnsafeMutableRawBufferPointer($0).copyMemory(from: run); return run.count }
        }
        let word = readable >= 8
            ? UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)) & (run.count == 8 ? ~0 : (1 &<< UInt64(run.count &* 8)) &- 1)
            : JSONWordScan.tail(bytes.assumingMemoryBound(to: UInt8.self), count: run.count)
        return String(unsafeUninitializedCapacity: 8) {
            UnsafeMutableRawPointer($0.baseAddress!).storeBytes(of: word.littleEndian, as: UInt64.self)
            return run.count
        }
    }

    private mutating func escapedString(from start: Int) throws(JSONParseError) -> String {
        lastRaw = nil
        unescaped.removeAll(keepingCapacity: true)
        var runStart = start
        while at < text.count {
            let byte = text[at]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                let run = UnsafeRawBufferPointer(rebasing: text[runStart..<at])
                try checkUTF8(run, from: runStart)
                unescaped.append(contentsOf: run)
                if byte == UInt8(ascii: "\"") {
                    at += 1
                    return String(decoding: unescaped, as: UTF8.self)
                }
                try escape()
                runStart = at
                continue
            }
            if byte < 0x20 { throw failure("control character 0x\(String(byte, radix: 16)) in a string", at: at) }
            at += 1
        }
        throw failure("unterminated string", at: at)
    }

    /// One escape from its backslash, appended to `unescaped` as UTF-8.
    private mutating func escape() throws(JSONParseError) {
        let escapeAt = at
        at += 1
        guard at < text.count else { throw failure("unterminated string", at: at) }
        let letter = text[at]
        at += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(letter)
        case UInt8(ascii: "b"): unescaped.append(8)
        case UInt8(ascii: "f"): unescaped.append(12)
        case UInt8(ascii: "n"): unescaped.append(10)
        case UInt8(ascii: "r"): unescaped.append(13)
        case UInt8(ascii: "t"): unescaped.append(9)
        case UInt8(ascii: "u"):
            var scalar = try hexQuad(escapeAt)
            if scalar == 0 { return try unrepresentableEscape("\\u0000 is not allowed in a string", at: escapeAt) }
            if (0xDC00...0xDFFF).contains(scalar) { return try unrepresentableEscape("lone low surrogate in \\u escape", at: escapeAt) }
            if (0xD800...0xDBFF).contains(scalar) {
                guard at + 1 < text.count, text[at] == UInt8(ascii: "\\"), text[at + 1] == UInt8(ascii: "u") else {
                    return try unrepresentableEscape("high surrogate not followed by a low one in \\u escape", at: escapeAt)
                }
                at += 2
                let low = try hexQuad(escapeAt)
                guard (0xDC00...0xDFFF).contains(low) else {
                    at -= 6  // the escape after it is read on its own
                    return try unrepresentableEscape("high surrogate not followed by a low one in \\u escape", at: escapeAt)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            unescaped.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
        default: throw failure("invalid escape", at: escapeAt)
        }
    }

    /// Refuses an escape Deck cannot hold, or, marking, reads it as U+FFFD and flags its string.
    private mutating func unrepresentableEscape(_ message: String, at offset: Int) throws(JSONParseError) {
        _ = try unrepresentable(message, at: offset)
        unrepresentableString = true
        unescaped.append(contentsOf: [0xEF, 0xBF, 0xBD])
    }

    private mutating func hexQuad(_ escapeAt: Int) throws(JSONParseError) -> UInt32 {
        guard at + 4 <= text.count else { throw failure("invalid \\u escape", at: escapeAt) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = text[at]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape", at: escapeAt)
            }
            value = value << 4 | UInt32(digit)
            at += 1
        }
        return value
    }

    /// Refuses bytes that are not well-formed UTF-8 (overlong forms, surrogates, beyond U+10FFFF).
    private func checkUTF8(_ run: UnsafeRawBufferPointer, from offset: Int) throws(JSONParseError) {
        var index = 0
        while index < run.count {
            let lead = run[index]
            if lead < 0x80 { index += 1; continue }
            let length: Int, low: UInt8, high: UInt8
            switch lead {
            case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
            case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
            case 0xED: (length, low, high) = (3, 0x80, 0x9F)
            case 0xE1...0xEF: (length, low, high) = (3, 0x80, 0xBF)
            case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
            case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
            case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
            default: throw failure("invalid UTF-8 byte 0x\(String(lead, radix: 16))", at: offset + index)
            }
            guard index + length <= run.count, (low...high).contains(run[index + 1]),
                  (index + 2..<index + length).allSatisfy({ run[$0] & 0xC0 == 0x80 }) else {
                throw failure("invalid UTF-8 byte 0x\(String(lead, radix: 16))", at: offset + index)
            }
            index += length
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard at + count <= text.count, memcmp(text.baseAddress! + at, word.utf8Start, count) == 0 else {
            throw failure("invalid token", at: at)
        }
        at += count
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`: an integer when it has neither fraction nor
    /// exponent and fits 64 bits, a finite real otherwise.
    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = at
        let negative = text[at] == UInt8(ascii: "-")
        if negative { at += 1 }
        let digitsStart = at
        guard at < text.count, isDigit(text[at]) else { throw failure("invalid token", at: start) }
        if text[at] == UInt8(ascii: "0") {
            at += 1
            if at < text.count && isDigit(text[at]) { throw failure("invalid token: a number with a leading zero", at: start) }
        } else {
            while at < text.count && isDigit(text[at]) { at += 1 }
        }
        var real = false, fractionDigits = 0, exponent = 0
        if at < text.count && text[at] == UInt8(ascii: ".") {
            real = true
            at += 1
            guard at < text.count, isDigit(text[at]) else { throw failure("invalid token", at: start) }
            let fractionStart = at
            while at < text.count && isDigit(text[at]) { at += 1 }
            fractionDigits = at - fractionStart
        }
        let digitsEnd = at
        if at < text.count && (text[at] == UInt8(ascii: "e") || text[at] == UInt8(ascii: "E")) {
            real = true
            at += 1
            var exponentSign = 1
            if at < text.count && (text[at] == UInt8(ascii: "+") || text[at] == UInt8(ascii: "-")) {
                if text[at] == UInt8(ascii: "-") { exponentSign = -1 }
                at += 1
            }
            guard at < text.count, isDigit(text[at]) else { throw failure("invalid token", at: start) }
            // Held below a bound far past any exact scale, so a long exponent cannot overflow it.
            while at < text.count && isDigit(text[at]) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(text[at] - UInt8(ascii: "0")) }
                at += 1
            }
            exponent *= exponentSign
        }
        if !real {
            var magnitude: UInt64 = 0
            for index in digitsStart..<at {
                let (times10, over1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, over2) = times10.addingReportingOverflow(UInt64(text[index] - UInt8(ascii: "0")))
                guard !over1 && !over2 else { return try unrepresentable("integer out of range", at: start) }
                magnitude = sum
            }
            if negative {
                guard magnitude <= UInt64(Int64.max) + 1 else { return try unrepresentable("integer out of range", at: start) }
                return .int(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude))
            }
            guard magnitude <= UInt64(Int64.max) else { return try unrepresentable("integer out of range", at: start) }
            return .int(Int64(magnitude))
        }
        let digits = UnsafeRawBufferPointer(rebasing: text[digitsStart..<digitsEnd])
        if let exact = JSONParser.exactReal(digits, scale: exponent - fractionDigits) { return .double(negative ? -exact : exact) }
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: at - start + 1) { buffer in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: text[start..<at]))
            buffer[at - start] = 0
            return strtod(buffer.baseAddress!, nil)
        }
        guard value.isFinite else { return try unrepresentable("real number overflow", at: start) }
        return .double(value)
    }

    /// The mark for a value Deck cannot hold (its text read), or the error refusing it.
    private func unrepresentable(_ message: String, at offset: Int) throws(JSONParseError) -> JSONValue {
        guard marksUnrepresentable else {
            var error = failure(message, at: offset)
            error.kind = .unrepresentable
            throw error
        }
        return .double(.nan)  // which no JSON text gives otherwise
    }

    /// The real `digits` × 10^`scale` (its digits with the point left in) without strtod, when that
    /// is exact to compute: digits of at most 2^53 and a power of ten up to 10^22 are both exact in
    /// a Double, so one multiplication or division rounds correctly, as strtod does (Clinger's
    /// fast path: 0.5, 44.1, 1e-3 and every volume and rate). Nil otherwise.
    private static func exactReal(_ digits: UnsafeRawBufferPointer, scale: Int) -> Double? {
        guard scale >= -22 && scale <= 22 else { return nil }
        var mantissa: UInt64 = 0
        for byte in digits where byte != UInt8(ascii: ".") {
            mantissa = mantissa &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
            if mantissa > 1 << 53 { return nil }
        }
        let power = exactPowersOfTen[Int(scale.magnitude)]
        return scale < 0 ? Double(mantissa) / power : Double(mantissa) * power
    }

    /// 10^0 to 10^22: the powers of ten a Double holds exactly.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]

    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    private mutating func skipWhitespace() {
        while at < text.count {
            switch text[at] {
            case 32, 9, 10, 13: at += 1
            default: return
            }
        }
    }

    /// A syntax error at byte `offset`, with its line and column (characters, as people count them).
    private func failure(_ message: String, at offset: Int) -> JSONParseError {
        var line = 1, column = 0
        for byte in text[..<min(offset + 1, text.count)] {
            if byte == 10 {
                line += 1
                column = 0
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        if offset >= text.count { column += 1 }
        let near = offset < text.count && text[offset] >= 0x20 && text[offset] < 0x7F
            ? " near '\(Character(Unicode.Scalar(text[offset])))'" : (offset >= text.count ? " near the end of the text" : "")
        return JSONParseError(kind: .syntax, line: line, column: column, message: message + near)
    }
}

/// Where one member's key stands: its opening quote, and its bytes when it has no escapes (so it
/// compares as bytes in place).
struct KeySpan {
    var at: Int
    var raw: Range<Int>?
}
