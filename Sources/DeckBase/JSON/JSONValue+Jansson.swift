import CJansson
import Glibc

/// Bounds applied to untrusted JSON before and while it is parsed.
public struct JSONLimits: Sendable, Equatable {
    public var maxBytes: Int
    public var maxDepth: Int
    /// Most elements in a top-level array (a JSON-RPC batch), checked before any is converted.
    public var maxTopLevelElements: Int

    public init(maxBytes: Int = 1 << 20, maxDepth: Int = 64, maxTopLevelElements: Int = .max) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxTopLevelElements = maxTopLevelElements
    }
}

/// Why a JSON text was refused, with the position jansson reports (1-based line and column).
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case syntax, tooLarge, tooDeep
        /// A top-level array with this many elements, over `maxTopLevelElements`.
        case tooManyElements(Int)
    }
    public var kind: Kind
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String {
        kind == .syntax ? "line \(line), column \(column): \(message)" : message
    }
}

extension JSONValue {
    /// Parses one JSON value (any type at the top level); duplicate object keys are refused.
    public static func parse(_ bytes: [UInt8], limits: JSONLimits = JSONLimits()) throws(JSONParseError) -> JSONValue {
        if bytes.count > limits.maxBytes {
            throw JSONParseError(kind: .tooLarge, line: 0, column: 0,
                                 message: "JSON text of \(bytes.count) bytes exceeds the limit of \(limits.maxBytes) bytes")
        }
        if limits.maxTopLevelElements < .max, let count = topLevelElementCount(bytes), count > limits.maxTopLevelElements {
            throw JSONParseError(kind: .tooManyElements(count), line: 0, column: 0,
                                 message: "a top-level array of \(count) elements exceeds the limit of \(limits.maxTopLevelElements)")
        }
        var error = json_error_t()
        let flags = Int(JSON_DECODE_ANY | JSON_REJECT_DUPLICATES)
        let root = bytes.withUnsafeBytes { buf in
            if let base = buf.baseAddress { return json_loadb(base.assumingMemoryBound(to: CChar.self), buf.count, flags, &error) }
            return json_loads("", flags, &error)
        }
        guard let root else {
            let text = withUnsafeBytes(of: &error.text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw JSONParseError(kind: .syntax, line: Int(error.line), column: Int(error.column), message: text)
        }
        defer { json_decref(root) }
        return try JSONValue(jansson: root, depth: 1, maxDepth: limits.maxDepth)
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

    public static func parse(_ text: String, limits: JSONLimits = JSONLimits()) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), limits: limits)
    }

    private init(jansson json: UnsafeMutablePointer<json_t>, depth: Int, maxDepth: Int) throws(JSONParseError) {
        let isContainer = json.pointee.type == JSON_OBJECT || json.pointee.type == JSON_ARRAY
        if isContainer && depth > maxDepth {
            throw JSONParseError(kind: .tooDeep, line: 0, column: 0,
                                 message: "JSON nesting deeper than the limit of \(maxDepth) levels")
        }
        switch json.pointee.type {
        case JSON_NULL: self = .null
        case JSON_TRUE: self = .bool(true)
        case JSON_FALSE: self = .bool(false)
        case JSON_INTEGER: self = .int(Int64(json_integer_value(json)))
        case JSON_REAL: self = .double(json_real_value(json))
        case JSON_STRING:
            let length = json_string_length(json)
            let text = json_string_value(json)!.withMemoryRebound(to: UInt8.self, capacity: length) {
                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
            }
            self = .string(text)
        case JSON_ARRAY:
            var elements: [JSONValue] = []
            elements.reserveCapacity(json_array_size(json))
            for index in 0..<json_array_size(json) {
                elements.append(try JSONValue(jansson: json_array_get(json, index), depth: depth + 1, maxDepth: maxDepth))
            }
            self = .array(elements)
        default:
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(json_object_size(json))
            var iterator = json_object_iter(json)
            while let it = iterator {
                let key = json_object_iter_key(it).withMemoryRebound(to: UInt8.self, capacity: json_object_iter_key_len(it)) {
                    String(decoding: UnsafeBufferPointer(start: $0, count: json_object_iter_key_len(it)), as: UTF8.self)
                }
                members[key] = try JSONValue(jansson: json_object_iter_value(it), depth: depth + 1, maxDepth: maxDepth)
                iterator = json_object_iter_next(json, it)
            }
            self = .object(members)
        }
    }
}
