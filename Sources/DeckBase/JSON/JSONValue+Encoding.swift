import Glibc

/// Writing JSON text directly from the value: compact, object keys sorted, strings escaped per
/// RFC 8259. (Parsing goes through jansson; writing needs no C tree.)
extension JSONValue {
    /// Compact JSON text with sorted object keys; non-finite numbers, which JSON cannot carry, become null.
    /// Reals are written in full (they read back equal) unless `realPrecision` asks for that many
    /// significant digits, as text for people does (0.199526235461235, not 0.19952623546123505).
    public func encoded(realPrecision: Int? = nil) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        write(into: &bytes, realPrecision: realPrecision)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Text for people: each member and element on a line of its own, indented by two spaces a level,
    /// `"key": value`, object keys sorted (the layout of jansson's JSON_INDENT(2)).
    public func prettyEncoded(realPrecision: Int? = nil) -> String {
        var bytes: [UInt8] = []
        writePretty(into: &bytes, level: 0, realPrecision: realPrecision)
        return String(decoding: bytes, as: UTF8.self)
    }

    private func writePretty(into bytes: inout [UInt8], level: Int, realPrecision: Int?) {
        func newline(_ level: Int) {
            bytes.append(10)
            bytes += repeatElement(UInt8(ascii: " "), count: level * 2)
        }
        switch self {
        case .array(let elements) where !elements.isEmpty:
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(level + 1)
                element.writePretty(into: &bytes, level: level + 1, realPrecision: realPrecision)
            }
            newline(level)
            bytes.append(UInt8(ascii: "]"))
        case .object(let members) where !members.isEmpty:
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(level + 1)
                JSONValue.write(string: key, into: &bytes)
                bytes += ": ".utf8
                members[key]!.writePretty(into: &bytes, level: level + 1, realPrecision: realPrecision)
            }
            newline(level)
            bytes.append(UInt8(ascii: "}"))
        default:
            write(into: &bytes, realPrecision: realPrecision)
        }
    }

    private func write(into bytes: inout [UInt8], realPrecision: Int?) {
        switch self {
        case .null: bytes += "null".utf8
        case .bool(let value): bytes += (value ? "true" : "false").utf8
        case .int(let value): bytes += String(value).utf8
        case .double(let value): bytes += JSONValue.text(of: value, precision: realPrecision).utf8
        case .string(let value): JSONValue.write(string: value, into: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                element.write(into: &bytes, realPrecision: realPrecision)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONValue.write(string: key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                members[key]!.write(into: &bytes, realPrecision: realPrecision)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// A real as JSON: null when not finite; with `precision` significant digits (`%.*g`), kept
    /// recognisably real (`1.0`, not `1`), as jansson writes it.
    private static func text(of value: Double, precision: Int?) -> String {
        guard value.isFinite else { return "null" }
        guard let precision else { return String(value) }
        var buffer = [CChar](repeating: 0, count: 40)
        _ = withVaList([Int32(max(1, min(precision, 17))), value]) { vsnprintf(&buffer, buffer.count, "%.*g", $0) }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.contains(where: { $0 == "." || $0 == "e" }) ? text : text + ".0"
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private static func write(string: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [92, 34]
            case UInt8(ascii: "\\"): bytes += [92, 92]
            case 0x0A: bytes += [92, UInt8(ascii: "n")]
            case 0x0D: bytes += [92, UInt8(ascii: "r")]
            case 0x09: bytes += [92, UInt8(ascii: "t")]
            case 0..<0x20: bytes += [92, UInt8(ascii: "u"), 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
