/// A playback time in seconds (a position, a duration, a skip), checked where it enters: finite
/// and within ±`limit`, so converting it to milliseconds or microseconds can never trap.
public struct MediaTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// About 31 years: longer than any media, and 10^15 microseconds, far inside Int64.
    public static let limit = 1e9
    /// Positions and durations: from 0 to `limit`.
    public static let positions: ClosedRange<Double> = 0...limit
    /// Offsets (a skip, a seek by D-Bus): from -`limit` to `limit`.
    public static let offsets: ClosedRange<Double> = -limit...limit

    public let seconds: Double

    /// nil for NaN, an infinity or a value outside `range` (a sub-range of `offsets`).
    public init?(seconds: Double, in range: ClosedRange<Double> = MediaTime.positions) {
        guard seconds.isFinite, range.contains(seconds), MediaTime.offsets.contains(seconds) else { return nil }
        self.seconds = seconds == 0 ? 0 : seconds  // -0 reads as 0
    }

    /// Microseconds (D-Bus, MPRIS) within `range`, or nil.
    public init?(microseconds: Int64, in range: ClosedRange<Double> = MediaTime.positions) {
        self.init(seconds: Double(microseconds) / 1_000_000, in: range)
    }

    /// A time derived from checked ones (an extrapolated elapsed time) brought into `offsets`:
    /// NaN reads as 0, anything past the limit as the limit.
    public init(clamping seconds: Double) {
        self.seconds = seconds.isNaN ? 0 : min(max(seconds, -MediaTime.limit), MediaTime.limit)
    }

    public var microseconds: Int64 { Int64(seconds * 1_000_000) }
    public var milliseconds: Int64 { Int64(seconds * 1_000) }
    /// Whole seconds, rounded toward zero: what a log line or a clock shows.
    public var wholeSeconds: Int64 { Int64(seconds) }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { lhs.seconds < rhs.seconds }

    public var description: String { "\(seconds) s" }
}
