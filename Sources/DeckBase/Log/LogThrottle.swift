/// Keeps a repeating event to one log line per burst: the first occurrence is logged, later ones
/// within `windowMilliseconds` are counted, and the next line says how many were held back.
public struct LogThrottle: Sendable {
    public let windowMilliseconds: UInt64
    private var lastLogged: UInt64?
    private var held = 0

    public init(windowMilliseconds: UInt64 = 10_000) { self.windowMilliseconds = windowMilliseconds }

    /// Whether to log now (`now` in milliseconds, any monotonic origin), and how many occurrences
    /// were held back since the last line that was logged.
    public mutating func admit(now: UInt64) -> (log: Bool, held: Int) {
        if let lastLogged, now < lastLogged + windowMilliseconds {
            held += 1
            return (false, 0)
        }
        lastLogged = now
        defer { held = 0 }
        return (true, held)
    }

    /// " (N more since the last report)" when some were held back, else "".
    public static func suffix(_ held: Int) -> String { held > 0 ? " (\(held) more since the last report)" : "" }
}
