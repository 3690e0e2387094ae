/// Names in the order people expect of a media library: letters compared without case, and runs
/// of digits as the numbers they are ("Track 2" before "Track 10"). A total order: names equal so
/// far are told apart by their plain spelling, so a tree built twice lists them the same way.
public enum NaturalOrder {
    public static func less(_ a: String, _ b: String) -> Bool {
        switch compare(a.utf8, b.utf8) {
        case .some(let less): less
        case nil: a < b
        }
    }

    /// True or false where `a` and `b` differ by the natural order; nil when it sees them as equal.
    private static func compare(_ a: String.UTF8View, _ b: String.UTF8View) -> Bool? {
        var i = a.startIndex, j = b.startIndex
        while i != a.endIndex, j != b.endIndex {
            let x = a[i], y = b[j]
            if isDigit(x), isDigit(y) {
                // Both runs without their leading zeros: the longer is the larger, else the first digit that differs.
                let first = run(a, from: i), second = run(b, from: j)
                if first.count != second.count { return first.count < second.count }
                var (p, q) = (first.start, second.start)
                while p != first.end {
                    if a[p] != b[q] { return a[p] < b[q] }
                    (p, q) = (a.index(after: p), b.index(after: q))
                }
                (i, j) = (first.end, second.end)
                continue
            }
            let (p, q) = (folded(x), folded(y))
            if p != q { return p < q }
            i = a.index(after: i)
            j = b.index(after: j)
        }
        if i == a.endIndex, j == b.endIndex { return nil }
        return i == a.endIndex
    }

    /// The run of digits at `from`: where it starts past its leading zeros, where it ends, and
    /// how many digits are left.
    private static func run(_ text: String.UTF8View, from: String.UTF8View.Index)
        -> (start: String.UTF8View.Index, end: String.UTF8View.Index, count: Int) {
        var start = from
        while start != text.endIndex, text[start] == UInt8(ascii: "0") { start = text.index(after: start) }
        var end = start, count = 0
        while end != text.endIndex, isDigit(text[end]) {
            end = text.index(after: end)
            count += 1
        }
        return (start, end, count)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// ASCII letters in lower case; other bytes (UTF-8 sorts by code point) as they are.
    private static func folded(_ byte: UInt8) -> UInt8 { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte }
}
