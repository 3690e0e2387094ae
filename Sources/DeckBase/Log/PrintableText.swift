/// Text made safe to print: control characters escaped, so no value quoted in a log line or shown
/// by deckctl (a client's URI, a plugin's title) can forge whole lines or drive a terminal.
public enum PrintableText {
    /// Longest log message kept, in bytes; the rest is cut and counted.
    public static let maxLogBytes = 4_096

    /// `text`'s first `characters` characters and its size when it is longer: how an answer quotes
    /// what a client sent (a method name, an item) without echoing a megabyte back.
    public static func excerpt(_ text: String, characters: Int = 100) -> String {
        guard let cut = text.index(text.startIndex, offsetBy: characters, limitedBy: text.endIndex), cut < text.endIndex else { return text }
        return "\(text[..<cut])… (\(text.utf8.count) bytes)"
    }

    /// `text` as it is when it has nothing to escape and fits, else escaped and cut at `maxBytes`.
    public static func escaping(_ text: String, maxBytes: Int = PrintableText.maxLogBytes) -> String {
        let bytes = text.utf8
        var plain = bytes.count <= maxBytes
        if plain {
            var (before, previous): (UInt8, UInt8) = (0, 0)
            for byte in bytes {
                // C0 controls and DEL, C1 controls (U+0080–U+009F, encoded C2 80 to C2 9F), and the
                // bidirectional overrides and isolates (U+202A–U+202E: E2 80 AA–AE; U+2066–U+2069:
                // E2 81 A6–A9), which would show the rest of a line in another order than it has.
                if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && byte < 0xA0)
                    || (before == 0xE2 && ((previous == 0x80 && (0xAA...0xAE).contains(byte)) || (previous == 0x81 && (0xA6...0xA9).contains(byte)))) {
                    plain = false
                    break
                }
                (before, previous) = (previous, byte)
            }
        }
        if plain { return text }
        var escaped = ""
        var kept = 0
        for scalar in text.unicodeScalars {
            let piece: String
            switch scalar.value {
            case 0x0A: piece = "\\n"
            case 0x0D: piece = "\\r"
            case 0x09: piece = "\\t"
            case 0x00..<0x20, 0x7F, 0x80..<0xA0: piece = "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            case 0x202A...0x202E, 0x2066...0x2069: piece = "\\u{" + String(scalar.value, radix: 16) + "}"
            default: piece = String(scalar)
            }
            let size = UTF8.width(scalar)
            guard kept + size <= maxBytes else {
                return escaped + "… (\(bytes.count - kept) more bytes cut)"
            }
            kept += size
            escaped += piece
        }
        return escaped
    }
}
