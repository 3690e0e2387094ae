import Testing
@testable import DeckMPRIS
@testable import DeckNowPlaying

/// What any process on the session bus may send the player, at the edges of each D-Bus type:
/// offsets and positions beyond MediaTime's range are InvalidArgs, so are rates outside
/// MinimumRate–MaximumRate and NaN, and none of it traps.
@Suite struct MPRISArgumentTests {
    static let int64s: [Int64] = [.min, .min + 1, -1_000_000_000_000_001, -1, 0, 1, 2_500_000, 1_000_000_000_000_000, 1_000_000_000_000_001, .max]

    @Test func seekAndSetPositionTakeEveryInt64() {
        let track = "/org/deck/track/1"
        for value in MPRISArgumentTests.int64s {
            let inRange = abs(Double(value)) <= 1e15
            let seek = MPRISBridge.decide("Seek", [.int64(value)], trackID: track)
            #expect(inRange ? seek == .run(.skip(Double(value) / 1e6)) : seek == .invalid("the offset \(value) µs is beyond ±1000000000.0 s"))
            let position = MPRISBridge.decide("SetPosition", [.objectPath(track), .int64(value)], trackID: track)
            #expect(value >= 0 && inRange ? position == .run(.seek(Double(value) / 1e6)) : position == .invalid("the position \(value) µs is not from 0 to 1000000000.0 s"))
            #expect(MPRISBridge.decide("SetPosition", [.objectPath("/other"), .int64(value)], trackID: track) == .ignore)
        }
        #expect(MPRISBridge.decide("Seek", [.string("x")], trackID: track) == .invalid("Seek takes an offset in microseconds (x)"))
        #expect(MPRISBridge.decide("SetPosition", [], trackID: track) == .invalid("SetPosition takes a track id (o) and a position in microseconds (x)"))
        #expect(MPRISBridge.decide("Launch", [], trackID: track) == .unknown)
    }

    @Test func rateTakesOnlyTheRatesItsMinimumAndMaximumSayAndZeroPauses() {
        for rate in [Double.nan, .infinity, -.infinity, 1e308, -1, -0.0625, 0.0624, 16.000001] {
            #expect(MPRISBridge.command(setting: "Rate", to: .double(rate)) == .invalid("Rate is 0 (pause) or from 0.0625 to 16.0 (d)"), "\(rate)")
        }
        #expect(MPRISBridge.command(setting: "Rate", to: .double(1.5)) == .run(.setRate(1.5)))
        #expect(MPRISBridge.command(setting: "Rate", to: .double(0.0625)) == .run(.setRate(0.0625)))
        #expect(MPRISBridge.command(setting: "Rate", to: .double(16)) == .run(.setRate(16)))
        #expect(MPRISBridge.command(setting: "Rate", to: .double(0)) == .run(.pause), "as MPRIS says: a rate of 0 is Pause")
        #expect(MPRISBridge.command(setting: "Rate", to: .string("fast")) == .invalid("Rate is 0 (pause) or from 0.0625 to 16.0 (d)"))
    }

    @Test func loopStatusAndShuffleTakeTheirOwnValuesAndTheRestIsReadOnly() {
        #expect(MPRISBridge.command(setting: "LoopStatus", to: .string("Playlist")) == .run(.setRepeat(.all)))
        #expect(MPRISBridge.command(setting: "LoopStatus", to: .string("Sometimes")) == .invalid("LoopStatus is None, Track or Playlist (s)"))
        #expect(MPRISBridge.command(setting: "Shuffle", to: .bool(true)) == .run(.setShuffle(.items)))
        #expect(MPRISBridge.command(setting: "Shuffle", to: .int64(1)) == .invalid("Shuffle is true or false (b)"))
        #expect(MPRISBridge.command(setting: "Volume", to: .double(0.5)) == .unknown)
        #expect(MPRISBridge.command(setting: "PlaybackStatus", to: .string("Playing")) == .unknown)
    }
}
