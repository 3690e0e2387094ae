/// Fixed-width integers travel little-endian.
package protocol WireInteger: WireValue, FixedWidthInteger {}

extension WireInteger {
    package func encode(into writer: inout WireWriter) { writer.append(self) }
    package init(from reader: inout WireReader) throws(WireError) { self = try reader.integer(Self.self) }
}

extension UInt8: WireInteger {}
extension UInt32: WireInteger {}
extension Int32: WireInteger {}
extension UInt64: WireInteger {}

extension Int: WireValue {
    package func encode(into writer: inout WireWriter) { writer.append(Int64(self)) }
    package init(from reader: inout WireReader) throws(WireError) { self = Int(try reader.integer(Int64.self)) }
}

extension Double: WireValue {
    package func encode(into writer: inout WireWriter) { writer.append(bitPattern) }
    package init(from reader: inout WireReader) throws(WireError) { self = Double(bitPattern: try reader.integer(UInt64.self)) }
}

extension Bool: WireValue {
    package func encode(into writer: inout WireWriter) { writer.append(UInt8(self ? 1 : 0)) }
    package init(from reader: inout WireReader) throws(WireError) {
        switch try reader.integer(UInt8.self) {
        case 0: self = false
        case 1: self = true
        case let other: throw .invalid("\(other) is not a boolean")
        }
    }
}

extension String: WireValue {
    package func encode(into writer: inout WireWriter) {
        writer.append(UInt32(utf8.count))
        writer.append(utf8)
    }

    package init(from reader: inout WireReader) throws(WireError) {
        let count = try reader.integer(UInt32.self)
        guard let text = String(validating: try reader.raw(count: Int(count)), as: UTF8.self) else { throw .invalid("text is not UTF-8") }
        self = text
    }
}

extension Array: WireValue where Element: WireValue {
    package func encode(into writer: inout WireWriter) {
        writer.append(UInt32(count))
        for element in self { element.encode(into: &writer) }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        let count = Int(try reader.integer(UInt32.self))
        self = []
        for _ in 0..<count { append(try Element(from: &reader)) }
    }
}

extension Optional: WireValue where Wrapped: WireValue {
    package func encode(into writer: inout WireWriter) {
        switch self {
        case .none: writer.append(UInt8(0))
        case .some(let value):
            writer.append(UInt8(1))
            value.encode(into: &writer)
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        self = try Bool(from: &reader) ? .some(try Wrapped(from: &reader)) : .none
    }
}
