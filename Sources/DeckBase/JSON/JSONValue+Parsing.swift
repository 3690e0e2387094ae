extension JSONValue {
    /// Parses one JSON value (any type at the top level); duplicate object keys are refused.
    public static func parse(_ bytes: [UInt8], limits: JSONLimits = JSONLimits()) throws(JSONParseError) -> JSONValue {
        try parse(bytes, limits: limits, marksUnrepresentable: false)
    }

    /// Parses as `parse` does, but reads a value Deck cannot hold (`JSONParseError.Kind.unrepresentable`)
    /// as NaN, which no JSON text otherwise gives, instead of refusing the text; a member whose key
    /// is such a string has NaN for its value. So a JSON-RPC server still finds each request's id
    /// and refuses only what holds one.
    public static func parseMarkingUnrepresentable(_ bytes: [UInt8], limits: JSONLimits = JSONLimits()) throws(JSONParseError) -> JSONValue {
        try parse(bytes, limits: limits, marksUnrepresentable: true)
    }

    /// Whether this value holds a mark of `parseMarkingUnrepresentable`.
    public var holdsUnrepresentable: Bool {
        switch self {
        case .double(let value): value.isNaN
        case .array(let elements): elements.contains { $0.holdsUnrepresentable }
        case .object(let members): members.contains { $0.value.holdsUnrepresentable }
        case .null, .bool, .int, .string: false
        }
    }

    private static func parse(_ bytes: [UInt8], limits: JSONLimits, marksUnrepresentable: Bool) throws(JSONParseError) -> JSONValue {
        try checkSize(bytes, limits: limits)
        let result = bytes.withUnsafeBytes { text -> Result<JSONValue, JSONParseError> in
            var parser = JSONParser(text, maxDepth: limits.maxDepth, marksUnrepresentable: marksUnrepresentable)
            do throws(JSONParseError) { return .success(try parser.document()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    public static func parse(_ text: String, limits: JSONLimits = JSONLimits()) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), limits: limits)
    }

    /// Refuses a text over `limits.maxBytes`, or a top-level array over `maxTopLevelElements`, before any parsing.
    static func checkSize(_ bytes: [UInt8], limits: JSONLimits) throws(JSONParseError) {
        if bytes.count > limits.maxBytes {
            throw JSONParseError(kind: .tooLarge, line: 0, column: 0,
                                 message: "JSON text of \(bytes.count) bytes exceeds the limit of \(limits.maxBytes) bytes")
        }
        if limits.maxTopLevelElements < .max, let count = topLevelElementCount(bytes), count > limits.maxTopLevelElements {
            throw JSONParseError(kind: .tooManyElements(count), line: 0, column: 0,
                                 message: "a top-level array of \(count) elements exceeds the limit of \(limits.maxTopLevelElements)")
        }
    }

    /// How many elements a top-level array holds, counted without parsing (commas outside strings
    /// at depth 1), so an oversized batch costs a byte scan, not a parse; nil when the text is not
    /// an array. A malformed text is counted loosely; the parser then refuses it.
    static func topLevelElementCount(_ bytes: [UInt8]) -> Int? {
        guard let first = bytes.firstIndex(where: { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 }), bytes[first] == UInt8(ascii: "[") else {
            return nil
        }
        var depth = 0, commas = 0, inString = false, escaped = false, empty = true
        for byte in bytes[first...] {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true; empty = false
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if depth >= 1 { empty = false }
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 { return empty ? 0 : commas + 1 }
            case UInt8(ascii: ","): if depth == 1 { commas += 1 }
            case 32, 9, 10, 13: break
            default: empty = false
            }
        }
        return empty ? 0 : commas + 1
    }
}
