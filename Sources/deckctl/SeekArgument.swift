import DeckBase

/// `seek`'s argument: seconds, or a clock time as `now-playing` prints it (`[[H:]M:]S`, the
/// seconds with a fraction if wanted); a leading `+` or `-` skips from where it plays.
struct SeekArgument: Equatable {
    var seconds: Double
    var isSkip: Bool

    init?(_ text: String) {
        let sign = text.first == "-" ? -1.0 : 1.0
        isSkip = text.first == "+" || text.first == "-"
        let parts = text.dropFirst(isSkip ? 1 : 0).split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            // Hours and minutes are whole; minutes and seconds after a colon are under 60.
            let whole = index < parts.count - 1
            guard part.first != "+", part.first != "-", !whole || part.allSatisfy({ ("0"..."9").contains($0) }),
                  let value = Double(plainDecimal: part), index == 0 || value < 60 else { return nil }
            total = total * 60 + value
        }
        guard total.isFinite else { return nil }
        seconds = sign * total
    }
}
