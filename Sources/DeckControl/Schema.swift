import DeckBase

/// JSON Schema (draft-07) fragments for the method table, so every result `rpc.discover`
/// advertises is a real, strict schema: objects list their properties, require them unless said
/// otherwise, and allow nothing else, so a field added without its schema fails the tests.
public enum Schema {
    public static let string: JSONValue = ["type": "string"]
    public static let integer: JSONValue = ["type": "integer"]
    public static let number: JSONValue = ["type": "number"]
    public static let boolean: JSONValue = ["type": "boolean"]

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
