import CJansson
import Glibc

extension JSONValue {
    /// Parses one JSON value with jansson (JSON_DECODE_ANY | JSON_REJECT_DUPLICATES): how files
    /// (config, manifests, state, policy) are read, so people see jansson's own messages; and the
    /// reference Deck's own parser is held to.
    package static func parseWithJansson(_ bytes: [UInt8], limits: JSONLimits = JSONLimits()) throws(JSONParseError) -> JSONValue {
        try checkSize(bytes, limits: limits)
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
            var members = JSONObject()
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
