extension DeckTemplate {
    /// The JSON text the host reads, written in one pass into one buffer.
    public var json: String {
        var out = JSONText()
        write(to: &out)
        return out.text
    }

    private func write(to out: inout JSONText) {
        out.open(UInt8(ascii: "{"))
        out.member("type", kind.rawValue)
        if let title { out.member("title", title) }
        if let key { out.member("key", key) }
        if let message { out.member("message", message) }
        switch kind {
        case .tabBar:
            out.array("tabs", tabs) { $1.write(to: &$0) }
        case .list:
            out.array("sections", sections) { out, section in
                out.open(UInt8(ascii: "{"))
                if let header = section.header { out.member("header", header) }
                out.array("items", section.items) { $1.write(to: &$0) }
                out.close(UInt8(ascii: "}"))
            }
        case .information, .pointOfInterest, .search, .voiceControl, .map:
            out.array(rowsKey, sections.flatMap(\.items)) { $1.write(to: &$0) }
        default: break
        }
        if !buttons.isEmpty {
            out.array([.grid, .nowPlaying, .map].contains(kind) ? "buttons" : "actions", buttons) { $1.write(to: &$0) }
        }
        out.close(UInt8(ascii: "}"))
    }

    /// Where a kind other than a list keeps its rows.
    private var rowsKey: String {
        switch kind {
        case .pointOfInterest: "points"
        case .search: "results"
        case .voiceControl: "states"
        case .map: "trips"
        default: "items"
        }
    }
}

extension DeckItem {
    fileprivate func write(to out: inout JSONText) {
        out.open(UInt8(ascii: "{"))
        out.member("text", text)
        if let key { out.member("key", key) }
        if let detail { out.member("detail", detail) }
        if let image { out.member("image", number: image) }
        if let accessory { out.member("accessory", accessory.rawValue) }
        if playing { out.member("playing", literal: "true") }
        out.close(UInt8(ascii: "}"))
    }
}

/// Just enough JSON writing for templates: members and arrays appended as UTF-8 to one buffer,
/// strings quoted and escaped, commas placed.
struct JSONText {
    private var bytes: [UInt8] = []
    /// Whether the container open now has a member or element already (a comma goes first).
    private var started = false

    init() { bytes.reserveCapacity(1024) }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        started = false
    }

    mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        started = true
    }

    mutating func member(_ name: String, _ value: String) {
        key(name)
        quote(value)
    }

    mutating func member(_ name: String, number: UInt64) {
        key(name)
        bytes.append(contentsOf: String(number).utf8)
    }

    mutating func member(_ name: String, literal: String) {
        key(name)
        bytes.append(contentsOf: literal.utf8)
    }

    mutating func array<Element>(_ name: String, _ elements: [Element], _ write: (inout JSONText, Element) -> Void) {
        key(name)
        started = false
        bytes.append(UInt8(ascii: "["))
        for element in elements { write(&self, element) }
        close(UInt8(ascii: "]"))
    }

    private mutating func key(_ name: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func separate() {
        if started { bytes.append(UInt8(ascii: ",")) }
        started = true
    }

    /// `value` in quotes: its bytes copied whole when none needs an escape, as is usual.
    private mutating func quote(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        defer { bytes.append(UInt8(ascii: "\"")) }
        guard value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            return bytes.append(contentsOf: value.utf8)
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): bytes.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): bytes.append(contentsOf: #"\t"#.utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 15)])
            default: bytes.append(byte)
            }
        }
    }
}
