/// Numbers from outside, read only within their documented range: the boundary where a JSON
/// number becomes a typed value, before any arithmetic or conversion touches it.
extension JSONValue {
    /// A whole number within `range`; nil for another type, a fraction or a value outside it.
    /// A double with no fractional part (`3.0`) counts as whole.
    public func integer<T: FixedWidthInteger>(in range: ClosedRange<T>) -> T? {
        let whole: Int64
        switch self {
        case .int(let value): whole = value
        case .double(let value) where value.isFinite && value == value.rounded() && abs(value) < 9.0e18: whole = Int64(value)
        default: return nil
        }
        guard whole >= Int64(clamping: range.lowerBound), whole <= Int64(clamping: range.upperBound) else { return nil }
        return T(whole)
    }

    /// A finite number within `range`; nil for another type, NaN, an infinity or a value outside it.
    public func number(in range: ClosedRange<Double>) -> Double? {
        guard let value = doubleValue, value.isFinite, range.contains(value) else { return nil }
        return value == 0 ? 0 : value
    }

    /// A playback time within `range` (seconds).
    public func mediaTime(in range: ClosedRange<Double> = MediaTime.positions) -> MediaTime? {
        doubleValue.flatMap { MediaTime(seconds: $0, in: range) }
    }
}
