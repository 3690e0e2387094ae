import DeckBase

/// JSON Schema (draft-07) fragments for the method table, so every result `rpc.discover`
/// advertises is a real, strict schema: objects list their properties, require them unless said
/// otherwise, and allow nothing else, so a field added without its schema fails the tests.
public enum Schema {
    public static let string: JSONValue = ["type": "string"]
    public static let integer: JSONValue = ["type": "integer"]
    public static let number: JSONValue = ["type": "number"]
    public static let boolean: JSONValue = ["type": "boolean"]

    /// The bound of paths, URIs and item keys: Linux's PATH_MAX.
    public static let pathMax = 4096

    /// A string of at most `maxLength` characters (Unicode scalars, as JSON Schema counts them):
    /// what `rpc.discover` advertises and the dispatcher holds a call to before the method runs.
    public static func string(maxLength: Int) -> JSONValue { ["type": "string", "maxLength": .int(Int64(maxLength))] }

    /// A whole number from `range`: what `rpc.discover` advertises and `RPCCall.integer` holds a call to.
    public static func integer(in range: ClosedRange<Int64>) -> JSONValue {
        ["type": "integer", "minimum": .int(range.lowerBound), "maximum": .int(range.upperBound)]
    }

    /// A finite number from `range`.
    public static func number(in range: ClosedRange<Double>) -> JSONValue {
        ["type": "number", "minimum": .double(range.lowerBound), "maximum": .double(range.upperBound)]
    }

    public static func array(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items] }

    public static func oneOf(_ values: [String]) -> JSONValue { ["type": "string", "enum": .array(values.map { .string($0) })] }

    public static func nullable(_ schema: JSONValue) -> JSONValue { ["anyOf": [schema, ["type": "null"]]] }

    /// The longest string `schema` admits: its `maxLength`, else its longest `enum` member, looking
    /// through `anyOf`; nil when it admits no string or any length.
    public static func maxLength(of schema: JSONValue) -> Int? {
        if let limit = schema["maxLength"]?.intValue { return Int(limit) }
        if let members = schema["enum"]?.arrayValue {
            let strings = members.compactMap(\.stringValue)
            return strings.isEmpty ? nil : strings.map(\.unicodeScalars.count).max()
        }
        return schema["anyOf"]?.arrayValue?.compactMap { maxLength(of: $0) }.max()
    }

    /// An object with exactly these properties; all required except `optional`.
    public static func object(_ properties: JSONObject, optional: Set<String> = []) -> JSONValue {
        [
            "type": "object",
            "properties": .object(properties),
            "required": .array(properties.keys.filter { !optional.contains($0) }.sorted().map { .string($0) }),
            "additionalProperties": false,
        ]
    }
}
