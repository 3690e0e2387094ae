import MediaPlayback
import Testing

/// A row's key is its item's id when the runtime takes it, else a stable stand-in that fits.
@Suite struct RowKeyTests {
    @Test func anIdThatFitsIsItsOwnKey() {
        let id = String(repeating: "x", count: 246)
        #expect(RowKey.of("http://radio/live.mp3") == "http://radio/live.mp3")
        #expect(RowKey.of(id, prefix: "favourite:") == "favourite:" + id, "256 bytes in all")
    }

    @Test func aLongerIdIsCutBetweenCharactersAndDigestedToAKeyThatFits() {
        let base = "http://radio/live.mp3?token=" + String(repeating: "é", count: 200)
        let keys = [RowKey.of(base + "1"), RowKey.of(base + "2"), RowKey.of(base + "1", prefix: "favourite:")]
        #expect(keys.allSatisfy { $0.utf8.count <= RowKey.maxBytes && $0.utf8.count > RowKey.maxBytes - 20 }, "\(keys.map(\.utf8.count))")
        #expect(Set(keys).count == 3, "ids alike for their first 256 bytes still differ")
        #expect(keys[0] == RowKey.of(base + "1"), "the same id, the same key")
        #expect(keys[0].hasPrefix("http://radio/live.mp3?token=éé") && keys[2].hasPrefix("favourite:http://radio/"))
        #expect(keys.allSatisfy { $0.unicodeScalars.allSatisfy { $0 != "\u{FFFD}" } }, "no character cut in two")
    }
}
