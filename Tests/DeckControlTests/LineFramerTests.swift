import Testing
@testable import DeckControl

/// Lines out of a byte stream, and the hold that keeps a client's unread requests while it is
/// behind on its answers.
@Suite struct LineFramerTests {
    @Test func linesComeOutWholeAcrossReadsAndBlankOnesAreDropped() {
        var framer = LineFramer(maxBytes: 64)
        var lines: [String] = []
        for chunk in ["{\"a\"", ":1}\n\n  \n{\"b\":2}\n{\"c\""] {
            framer.feed(Array(chunk.utf8)) { piece in
                if case .line(let line) = piece { lines.append(String(decoding: line, as: UTF8.self)) }
                return true
            }
        }
        #expect(lines == ["{\"a\":1}", "{\"b\":2}"])
    }

    @Test func stoppingHoldsTheRestUntilTheNextFeed() {
        var framer = LineFramer(maxBytes: 64)
        var lines: [String] = []
        framer.feed(Array("1\n2\n3\n4".utf8)) { piece in
            if case .line(let line) = piece { lines.append(String(decoding: line, as: UTF8.self)) }
            return lines.count < 2
        }
        #expect(lines == ["1", "2"])
        #expect(framer.isHolding)
        framer.feed([]) { piece in
            if case .line(let line) = piece { lines.append(String(decoding: line, as: UTF8.self)) }
            return true
        }
        #expect(lines == ["1", "2", "3"])
        framer.feed(Array("\n".utf8)) { piece in
            if case .line(let line) = piece { lines.append(String(decoding: line, as: UTF8.self)) }
            return true
        }
        #expect(lines == ["1", "2", "3", "4"])
        #expect(!framer.isHolding)
    }
}
