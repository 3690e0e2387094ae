import DeckBase

/// A parsed response as deckctl reads it: DeckBase's `JSONValue`, seen through `Value`, where a
/// member that is not there reads as absent rather than failing.
struct JSONDocument {
    /// What deckd may send: its answers are capped far below this.
    static let limits = JSONLimits(maxBytes: 64 << 20, maxDepth: 256)

    let root: JSONValue

    init?(_ text: String) {
        guard let root = try? JSONValue.parse(text, limits: JSONDocument.limits) else { return nil }
        self.root = root
    }

    /// A value inside the document, or absent.
    struct Value {
        let raw: JSONValue?

        subscript(key: String) -> Value { Value(raw: raw?[key]) }
        subscript(index: Int) -> Value {
            guard let elements = raw?.arrayValue, elements.indices.contains(index) else { return Value(raw: nil) }
            return Value(raw: elements[index])
        }
        var count: Int { raw?.arrayValue?.count ?? 0 }
        var exists: Bool { raw != nil }
        /// The string, its control characters escaped: what a plugin or client set cannot drive the terminal.
        var string: String? { raw?.stringValue.map { PrintableText.escaping($0, maxBytes: .max) } }
        var int: Int? { raw?.intValue.flatMap { Int(exactly: $0) } }
        var number: Double? { raw?.doubleValue }
        var bool: Bool? { raw?.boolValue }
        var elements: [Value] { (raw?.arrayValue ?? []).map { Value(raw: $0) } }

        /// The value as JSON text: pretty for people, compact for scripts; reals to 15 significant
        /// digits, so 8.84 prints as 8.84, not 8.8399999999999999.
        func text(pretty: Bool) -> String {
            guard let raw else { return "null" }
            return pretty ? raw.prettyEncoded(realPrecision: 15) : raw.encoded(realPrecision: 15)
        }

        /// The value as a short human string: strings bare, everything else as compact JSON.
        var display: String { string ?? text(pretty: false) }
    }

    var value: Value { Value(raw: root) }

    /// Quotes `text` as a JSON string.
    static func quote(_ text: String) -> String { JSONValue.string(text).encoded() }
}
