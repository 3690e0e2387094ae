extension Double {
    /// A plain decimal with at most one sign, as typed on a command line ("90", "+10", "-2.5"); nil
    /// for what `Double(_:)` also reads but nobody means: hex, exponents, inf, nan.
    public init?(plainDecimal text: some StringProtocol) {
        let digits = text.first == "+" || text.first == "-" ? text.dropFirst() : text[...]
        guard digits.filter({ $0 == "." }).count <= 1, digits.allSatisfy({ $0 == "." || ("0"..."9").contains($0) }),
              let magnitude = Double(String(digits)), magnitude.isFinite else { return nil }
        self = text.first == "-" ? -magnitude : magnitude
    }
}
