/// An enum sent as a one-byte tag, then its payload. The tags are numbered once, by the order of
/// `Tag`'s cases, for both ends: a new case goes last so older numbers keep their meaning.
package protocol WireTagged: WireValue {
    associatedtype Tag: RawRepresentable<UInt8>
    var tag: Tag { get }
    /// What the value is, for the error an unknown tag gets ("plugin call 42").
    static var wireName: String { get }
}

extension WireTagged {
    /// Reads a tag this side knows, or fails naming the unknown number.
    package static func readTag(_ reader: inout WireReader) throws(WireError) -> Tag {
        let raw = try reader.read(UInt8.self)
        guard let tag = Tag(rawValue: raw) else { throw .invalid("\(wireName) \(raw)") }
        return tag
    }
}
