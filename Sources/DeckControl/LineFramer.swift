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

    package init(maxBytes: Int) { self.maxBytes = maxBytes }

    /// Feeds received bytes; calls `each` for every complete line (or oversize) in order. `each`
    /// returns false to stop early (the connection is going away); the rest is dropped.
    package mutating func feed(_ bytes: [UInt8], _ each: (Piece) -> Bool) {
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
            guard each(.line(line)) else { return }
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
