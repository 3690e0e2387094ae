import Testing
@testable import DeckBase

/// What a log line or deckctl prints of a value someone else chose: no control character gets
/// through, and a log message has a bound.
@Suite struct PrintableTextTests {
    @Test func plainTextComesBackAsItIs() {
        let text = "Turn left in 200 m — Straße, 東京, 🎵"
        #expect(PrintableText.escaping(text) == text)
    }

    @Test func controlCharactersAreEscapedSoNoLineCanBeForged() {
        let forged = "bad\n2026-01-01T00:00:00.000Z error deckd: forged\r\u{1B}[2J\t\u{7F}\u{9B}31m\u{0}"
        #expect(PrintableText.escaping(forged)
                == #"bad\n2026-01-01T00:00:00.000Z error deckd: forged\r\x1b[2J\t\x7f\x9b31m\x00"#)
    }

    /// A right-to-left override would show what follows it reversed ("Trojan Source"): a line could
    /// read as other than it is. Overrides and isolates are escaped; letters of either direction are not.
    @Test func bidirectionalOverridesAreEscapedSoNoLineReadsOtherwise() {
        #expect(PrintableText.escaping("title \u{202E}gnp.exe\u{202C} and \u{2066}x\u{2069}")
                == #"title \u{202e}gnp.exe\u{202c} and \u{2066}x\u{2069}"#)
        #expect(PrintableText.escaping("שלום, مرحبا \u{200F}") == "שלום, مرحبا \u{200F}")
    }

    @Test func aLongMessageIsCutOnACharacterAndTheRestCounted() {
        let text = String(repeating: "é", count: 10)  // 20 bytes
        #expect(PrintableText.escaping(text, maxBytes: 7) == "ééé… (14 more bytes cut)")
        #expect(PrintableText.escaping(text, maxBytes: 20) == text)
        let long = PrintableText.escaping(String(repeating: "x", count: 100_000))
        #expect(long == String(repeating: "x", count: PrintableText.maxLogBytes) + "… (95904 more bytes cut)")
    }

    @Test func anExcerptIsTheStartAndTheSizeOfALongText() {
        #expect(PrintableText.excerpt("short") == "short")
        #expect(PrintableText.excerpt(String(repeating: "é", count: 100)) == String(repeating: "é", count: 100))
        #expect(PrintableText.excerpt(String(repeating: "é", count: 101)) == String(repeating: "é", count: 100) + "… (202 bytes)")
        #expect(PrintableText.excerpt("abcdef", characters: 2) == "ab… (6 bytes)")
    }

    @Test func escapesCountTowardsTheBoundAsTheCharactersTheyStandFor() {
        #expect(PrintableText.escaping("\n\n\n\n", maxBytes: 2) == #"\n\n… (2 more bytes cut)"#)
    }
}
