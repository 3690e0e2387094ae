/// Writing JSON text directly from the value: compact, object keys in their kept order, strings
/// escaped per RFC 8259.
extension JSONValue {
    /// Compact JSON text with sorted object keys; non-finite numbers, which JSON cannot carry, become null.
    /// Reals are written in full (they read back equal) unless `realPrecision` asks for that many
    /// significant digits, as text for people does (0.199526235461235, not 0.19952623546123505).
    public func encoded(realPrecision: Int? = nil) -> String {
        var writer = JSONWriter(realPrecision: realPrecision)
        write(to: &writer)
        return writer.string
    }

    /// The compact text appended to `bytes`: how answers go straight into a connection's buffer.
    public func encode(appendingTo bytes: inout [UInt8]) {
        var writer = JSONWriter()
        write(to: &writer)
        writer.append(to: &bytes)
    }

    /// Text for people: each member and element on a line of its own, indented by two spaces a level,
    /// `"key": value`, object keys sorted (the layout of jansson's JSON_INDENT(2)).
    public func prettyEncoded(realPrecision: Int? = nil) -> String {
        var writer = JSONWriter(realPrecision: realPrecision)
        writePretty(to: &writer, level: 0)
        return writer.string
    }

    private func writePretty(to writer: inout JSONWriter, level: Int) {
        switch self {
        case .array(let elements) where !elements.isEmpty:
            writer.byte(UInt8(ascii: "["))
            for index in elements.indices {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                writer.newline(indent: (level + 1) * 2)
                elements[index].writePretty(to: &writer, level: level + 1)
            }
            writer.newline(indent: level * 2)
            writer.byte(UInt8(ascii: "]"))
        case .object(let object) where !object.isEmpty:
            writer.byte(UInt8(ascii: "{"))
            let members = object.members
            for index in members.indices {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                writer.newline(indent: (level + 1) * 2)
                writer.string(members[index].key)
                writer.text(": ")
                members[index].value.writePretty(to: &writer, level: level + 1)
            }
            writer.newline(indent: level * 2)
            writer.byte(UInt8(ascii: "}"))
        default:
            write(to: &writer)
        }
    }

    private func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.text("null")
        case .bool(let value): value ? writer.text("true") : writer.text("false")
        case .int(let value): writer.integer(value)
        case .double(let value): writer.real(value)
        case .string(let value): writer.string(value)
        case .array(let elements):
            writer.byte(UInt8(ascii: "["))
            // Through the buffer: no bounds check or retain per element.
            elements.withUnsafeBufferPointer { elements in
                for index in elements.indices {
                    if index > 0 { writer.byte(UInt8(ascii: ",")) }
                    elements[index].write(to: &writer)
                }
            }
            writer.byte(UInt8(ascii: "]"))
        case .object(let object):
            writer.byte(UInt8(ascii: "{"))
            object.members.withUnsafeBufferPointer { members in
                for index in members.indices {
                    writer.key(members[index].key, first: index == 0)
                    members[index].value.write(to: &writer)
                }
            }
            writer.byte(UInt8(ascii: "}"))
        }
    }
}
