import CJansson
import Glibc

/// A parsed JSON value as deckctl reads responses: a jansson tree, freed with the document.
final class JSONDocument {
    let root: UnsafeMutablePointer<json_t>

    init?(_ text: String) {
        var error = json_error_t()
        guard let root = json_loads(text, Int(JSON_DECODE_ANY), &error) else { return nil }
        self.root = root
    }

    deinit { json_decref(root) }

    /// A view of a value inside the document, which it keeps alive.
    struct Value {
        let raw: UnsafeMutablePointer<json_t>?
        let owner: JSONDocument?

        subscript(key: String) -> Value { Value(raw: raw.flatMap { json_object_get($0, key) }, owner: owner) }
        subscript(index: Int) -> Value { Value(raw: raw.flatMap { json_array_get($0, index) }, owner: owner) }
        var count: Int { raw.map { json_array_size($0) } ?? 0 }
        var exists: Bool { raw != nil }
        var string: String? { raw.flatMap { json_string_value($0) }.map { String(cString: $0) } }
        var int: Int? { raw.flatMap { $0.pointee.type == JSON_INTEGER ? Int(json_integer_value($0)) : nil } }
        var number: Double? { raw.flatMap { $0.pointee.type == JSON_INTEGER || $0.pointee.type == JSON_REAL ? json_number_value($0) : nil } }
        var bool: Bool? { raw.flatMap { $0.pointee.type == JSON_TRUE ? true : $0.pointee.type == JSON_FALSE ? false : nil } }
        var elements: [Value] { (0..<count).map { self[$0] } }

        /// The value as JSON text: pretty for people, compact for scripts. Reals get 15 significant
        /// digits (JSON_REAL_PRECISION), so 8.84 prints as 8.84, not 8.8399999999999999.
        func text(pretty: Bool) -> String {
            let flags = Int(JSON_ENCODE_ANY | JSON_SORT_KEYS) | (pretty ? 2 : Int(JSON_COMPACT)) | JSONDocument.realPrecision
            guard let raw, let dumped = json_dumps(raw, flags) else { return "null" }
            defer { free(dumped) }
            return String(cString: dumped)
        }

        /// The value as a short human string: strings bare, everything else as compact JSON.
        var display: String { string ?? text(pretty: false) }
    }

    var value: Value { Value(raw: root, owner: self) }

    /// jansson's JSON_REAL_PRECISION(15), a macro Swift does not import.
    static let realPrecision = (15 & 0x1F) << 11

    /// Quotes `text` as a JSON string.
    static func quote(_ text: String) -> String {
        guard let string = json_string(text) else { return "\"\"" }
        defer { json_decref(string) }
        return Value(raw: string, owner: nil).text(pretty: false)
    }
}
