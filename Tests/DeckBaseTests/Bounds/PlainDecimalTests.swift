import Testing
import DeckBase

/// Numbers typed on a command line: what a person writes reads as that, the rest is refused.
@Suite struct PlainDecimalTests {
    @Test(arguments: [("90", 90.0), ("+10", 10), ("-2.5", -2.5), ("0.25", 0.25), ("7.", 7), (".5", 0.5)])
    func plainDecimalsRead(text: String, value: Double) {
        #expect(Double(plainDecimal: text) == value)
    }

    @Test(arguments: ["", "+", "-", ".", "0x10", "1e3", "inf", "+inf", "nan", "1.2.3", "+-5", "--1", " 1", "1 ", "٣"])
    func whatDoubleAlsoReadsIsRefused(text: String) {
        #expect(Double(plainDecimal: text) == nil)
    }
}
