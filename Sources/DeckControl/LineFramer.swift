/// Splits a byte stream into newline-delimited messages, holding at most `maxBytes` of an
/// unfinished one: a longer line is reported once as oversized and the rest of it is skipped, so
/// the connection and its next messages carry on. Blank lines are dropped. Transport-free.
package struct LineFramer {
    package enum Piece: Equatable {
        case line([UInt8])
        /// A line went over the limit; what follows up to its newline is skipped.
        case oversized
    }

    package let maxBytes: Int
    private var buffer: [UInt8] = []
    private var discarding = false
    /// Bytes not yet looked at because `each` asked to stop: fed first next time.
    private var held: [UInt8] = []

    package init(maxBytes: Int) { self.maxBytes = maxBytes }

    /// Whether bytes wait from a feed that was stopped early.
    package var isHolding: Bool { !held.isEmpty }

    /// Feeds received bytes (after any held from before); calls `each` for every complete line (or
    /// oversize) in order. `each` returns false to stop early, when the client is behind on its
    /// answers or going away: the rest is held for the next feed (`feed([])` resumes).
    package mutating func feed(_ received: [UInt8], _ each: (Piece) -> Bool) {
        let bytes = held.isEmpty ? received : held + received
        held = []
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            let piece = bytes[start..<index]
            start = index + 1
            if discarding {
                discarding = false
                continue
            }
            buffer += piece
            let line = buffer
            buffer = []
            if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
            guard each(.line(line)) else {
                held = Array(bytes[start...])
                return
            }
        }
        guard !discarding else { return }
        buffer += bytes[start...]
        if buffer.count > maxBytes {
            buffer = []
            discarding = true
            _ = each(.oversized)
        }
    }
}
