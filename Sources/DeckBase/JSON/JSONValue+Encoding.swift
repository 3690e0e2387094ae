import Glibc

/// Writing JSON text directly from the value: compact, object keys in their kept order, strings
/// escaped per RFC 8259.
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
            for (index, member) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(level + 1)
                JSONValue.write(string: member.key, into: &bytes)
                bytes += ": ".utf8
                member.value.writePretty(into: &bytes, level: level + 1, realPrecision: realPrecision)
            }
            newline(level)
            bytes.append(UInt8(ascii: "}"))
        default:
            write(into: &bytes, realPrecision: realPrecision)
        }
    }

    private func write(into bytes: inout [UInt8], realPrecision: Int?) {
        switch self {
        case .null: JSONValue.append("null", to: &bytes)
        case .bool(let value): JSONValue.append(value ? "true" : "false", to: &bytes)
        case .int(let value): JSONValue.write(integer: value, into: &bytes)
        case .double(let value): JSONValue.append(JSONValue.text(of: value, precision: realPrecision), to: &bytes)
        case .string(let value): JSONValue.write(string: value, into: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for index in elements.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                elements[index].write(into: &bytes, realPrecision: realPrecision)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for index in members.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONValue.write(string: members[index].key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                members[index].value.write(into: &bytes, realPrecision: realPrecision)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func append(_ text: String, to bytes: inout [UInt8]) { bytes += text.utf8 }

    /// Decimal digits straight into the output, without a String in between.
    private static func write(integer: Int64, into bytes: inout [UInt8]) {
        if integer >= 0 && integer < 10 { return bytes.append(UInt8(ascii: "0") + UInt8(integer)) }
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = integer.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var first = digits.count
            repeat {
                first -= 1
                digits[first] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[first...]))
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

    /// A string in quotes, escaped per RFC 8259; runs of bytes that need no escape are copied whole.
    private static func write(string: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        let copied: Void? = string.utf8.withContiguousStorageIfAvailable { source in
            var start = 0
            for index in 0..<source.count {
                let byte = source[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if start < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[start..<index])) }
                escape(byte, into: &bytes)
                start = index + 1
            }
            if start < source.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[start...])) }
        }
        if copied == nil {
            for byte in string.utf8 {
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { escape(byte, into: &bytes) } else { bytes.append(byte) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func escape(_ byte: UInt8, into bytes: inout [UInt8]) {
        bytes.append(92)
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            bytes.append(UInt8(ascii: "u"))
            bytes.append(48)
            bytes.append(48)
            bytes.append(hex[Int(byte >> 4)])
            bytes.append(hex[Int(byte & 15)])
        }
    }
}
