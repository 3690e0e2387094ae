import MediaPlayback
import Testing

@Suite struct NaturalOrderTests {
    /// What a driver expects to read down a list of tracks, albums or folders.
    @Test func numbersAreComparedAsNumbersAndLettersWithoutCase() {
        let names = ["Track 10", "track 2", "Track 1", "Album 02", "album 1", "Album 2", "abba", "ABBA", "Zappa", "Émile", "10", "9", "", "a0b", "ab"]
        #expect(names.sorted(by: NaturalOrder.less) == ["", "9", "10", "a0b", "ab", "ABBA", "abba", "album 1", "Album 02", "Album 2", "Track 1",
                                                        "track 2", "Track 10", "Zappa", "Émile"])
    }

    @Test func aNumberLongerThanAnyIntegerIsStillOrdered() {
        #expect(NaturalOrder.less("Part 99999999999999999999999", "Part 100000000000000000000000"))
        #expect(!NaturalOrder.less("Part 100000000000000000000000", "Part 99999999999999999999999"))
    }

    /// Equal names are told apart by their spelling, so neither comes first both ways.
    @Test func theOrderIsTotal() {
        for (a, b) in [("Album 02", "Album 2"), ("ABBA", "abba"), ("x", "x")] {
            #expect(!(NaturalOrder.less(a, b) && NaturalOrder.less(b, a)))
            #expect(a == b || NaturalOrder.less(a, b) != NaturalOrder.less(b, a))
        }
    }
}
