/// What a listener calls a sink: what the HMI's output picker shows. Written as `name=` and
/// `kind=` query items on any sink URI (`file:cabin.opus?name=Cabin%20speakers&kind=speakers`);
/// without them the name is the URI and the kind follows from the scheme.
public struct SinkLabel: Sendable, Equatable {
    public var name: String?
    public var kind: SinkKind?

    public init(name: String? = nil, kind: SinkKind? = nil) {
        self.name = name
        self.kind = kind
    }

    public static let maxNameBytes = 64

    /// Reads a sink URI with its optional `name=` and `kind=`.
    public static func parse(_ text: String) throws(SinkError) -> (uri: SinkURI, label: SinkLabel) {
        let (uri, label) = try split(text)
        return (try SinkURI(uri), label)
    }

    /// Splits `name=` and `kind=` off `text`; returns the URI without them and the label.
    static func split(_ text: String) throws(SinkError) -> (uri: String, label: SinkLabel) {
        guard let question = text.firstIndex(of: "?") else { return (text, SinkLabel()) }
        var label = SinkLabel()
        var kept: [Substring] = []
        for item in text[text.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false) {
            if (item.hasPrefix("name=") && label.name != nil) || (item.hasPrefix("kind=") && label.kind != nil) {
                throw .invalidURI(text, "\(item.prefix(4))= is given twice; give it once")
            }
            if item.hasPrefix("name=") {
                guard let name = percentDecoded(item.dropFirst(5)), !name.isEmpty, name.utf8.count <= maxNameBytes,
                      !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                    throw .invalidURI(text, "name= must be 1 to \(maxNameBytes) bytes of percent-encoded UTF-8 without control characters")
                }
                label.name = name
            } else if item.hasPrefix("kind=") {
                guard let kind = SinkKind(rawValue: String(item.dropFirst(5))) else {
                    throw .invalidURI(text, "kind= must be one of \(SinkKind.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                label.kind = kind
            } else {
                kept.append(item)
            }
        }
        let base = String(text[..<question])
        return (kept.isEmpty ? base : base + "?" + kept.joined(separator: "&"), label)
    }

    /// `%XX` escapes and `+` for a space, as in a query string; nil when an escape is broken or the
    /// bytes are not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// What kind of output a sink is, for the picker's icon.
public enum SinkKind: String, Sendable, CaseIterable {
    case speakers, headphones, bluetooth, network, recording

    /// The kind a sink has when its URI does not say: files record, the rest go over the network.
    public init(default uri: SinkURI) {
        if case .file = uri { self = .recording } else { self = .network }
    }
}
