/// A plugin's log message made safe to print: control characters escaped (a plugin cannot forge
/// whole lines for other sources or drive the terminal), invalid UTF-8 replaced, length bounded.
struct PluginLogLine {
    /// Longest message kept, in bytes of the plugin's text; the rest is cut and counted.
    static let maxBytes = 1_024

    let text: String

    init(_ raw: UnsafePointer<CChar>) {
        var length = 0
        while raw[length] != 0 && length <= PluginLogLine.maxBytes { length += 1 }
        let cut = length > PluginLogLine.maxBytes
        let kept = UnsafeRawBufferPointer(start: raw, count: min(length, PluginLogLine.maxBytes))
        var escaped = ""
        for scalar in String(decoding: kept, as: UTF8.self).unicodeScalars {
            switch scalar.value {
            case 0x0A: escaped += "\\n"
            case 0x0D: escaped += "\\r"
            case 0x09: escaped += "\\t"
            case 0x00..<0x20, 0x7F, 0x80..<0xA0:
                escaped += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        if cut {
            var total = length
            while raw[total] != 0 { total += 1 }
            escaped += "… (\(total - PluginLogLine.maxBytes) more bytes cut)"
        }
        text = escaped
    }
}
