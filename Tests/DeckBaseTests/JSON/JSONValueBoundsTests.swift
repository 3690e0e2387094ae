import Testing
@testable import DeckBase

/// The boundary types: a JSON number becomes a typed value only within its range, and a
/// playback time converts to integers without trapping, whatever came in.
@Suite struct JSONValueBoundsTests {
    static let edges: [JSONValue] = [.int(.max), .int(.min), .double(1e19), .double(-1e19), .double(1e308), .double(-1e308),
                                     .double(-0.0), .double(2.5), .string("3"), .null, .bool(true), .array([1]), .object([:])]

    @Test func anIntegerIsReadOnlyWithinItsRange() {
        for value in JSONValueBoundsTests.edges {
            let read: Int64? = value.integer(in: -100...100)
            #expect(read == (value == .double(-0.0) ? 0 : nil), "\(value)")
        }
        #expect(JSONValue.int(100).integer(in: -100...100) == Int64(100))
        #expect(JSONValue.double(3.0).integer(in: 0...5) == 3)
        #expect(JSONValue.int(.max).integer(in: Int64.min...Int64.max) == Int64.max)
        #expect(JSONValue.int(-1).integer(in: UInt32.min...UInt32.max) == nil)
        #expect(JSONValue.int(.max).integer(in: 0...Int32.max) == nil)
    }

    @Test func aNumberIsFiniteAndWithinItsRange() {
        #expect(JSONValue.double(1e308).number(in: -1e9...1e9) == nil)
        #expect(JSONValue.int(.max).number(in: -16...16) == nil)
        #expect(JSONValue.double(-0.0).number(in: 0...1)?.sign == .plus)
        #expect(JSONValue.int(7).number(in: 0...10) == 7)
        #expect(JSONValue.string("7").number(in: 0...10) == nil)
    }

    @Test func aMediaTimeIsRefusedBeyondItsLimitAndConvertsWithoutTrapping() {
        for seconds in [Double.nan, .infinity, -.infinity, 1e19, 1e13, -1, MediaTime.limit.nextUp] {
            #expect(MediaTime(seconds: seconds) == nil, "\(seconds)")
        }
        #expect(MediaTime(seconds: -5, in: MediaTime.offsets)?.seconds == -5)
        #expect(MediaTime(seconds: MediaTime.limit)?.microseconds == 1_000_000_000_000_000)
        #expect(MediaTime(microseconds: .max, in: MediaTime.offsets) == nil)
        #expect(MediaTime(microseconds: .min, in: MediaTime.offsets) == nil)
        #expect(MediaTime(microseconds: 2_500_000)?.seconds == 2.5)
        for seconds in [Double.nan, .infinity, -.infinity, 1e300, -1e300, .greatestFiniteMagnitude] {
            let time = MediaTime(clamping: seconds)
            #expect(abs(time.seconds) <= MediaTime.limit)
            #expect(abs(time.microseconds) <= 1_000_000_000_000_000)
            #expect(abs(time.wholeSeconds) <= 1_000_000_000)
        }
    }
}
