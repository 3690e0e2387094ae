/// A plugin's log message, read no further than its bound: invalid UTF-8 replaced, the rest
/// counted. `PluginHost.log` escapes its control characters.
struct PluginLogLine {
    /// Longest message kept, in bytes of the plugin's text; the rest is cut and counted.
    static let maxBytes = 1_024

    let text: String

    init(_ raw: UnsafePointer<CChar>) {
        var length = 0
        while raw[length] != 0 && length <= PluginLogLine.maxBytes { length += 1 }
        let kept = UnsafeRawBufferPointer(start: raw, count: min(length, PluginLogLine.maxBytes))
        var text = String(decoding: kept, as: UTF8.self)
        if length > PluginLogLine.maxBytes {
            var total = length
            while raw[total] != 0 { total += 1 }
            text += "… (\(total - PluginLogLine.maxBytes) more bytes cut)"
        }
        self.text = text
    }
}
