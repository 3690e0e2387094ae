import Foundation
import Testing
@testable import DeckBase

/// Deck's own JSON parser: RFC 8259 as strict as jansson (its reference), straight into one tree.
@Suite struct JSONParserTests {
    /// Texts at the grammar's edges; each is read or refused exactly as jansson does.
    static let edges: [String] = [
        "0", "-0", "-0.0", "1e-3", "1E+2", "1.5e308", "1e309", "-1e309", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "01", "-", "1.", ".5", "1e", "+1", "0x10", "NaN", "Infinity",
        "true", "tru", "truex", "null", "nul", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}", "{\"a\":1 \"b\":2}",
        "[1 2]", "", " ", "[", "]", "{", "\"", "\"abc", "[] []", " \t\r\n[ \t\r\n1 \t\r\n] \t\r\n", "\u{FEFF}[]",
        "\"\\u0000\"", "\"\\u0041\\u00e9\\u20AC\"", "\"\\ud83d\\ude97\"", "\"\\ud83d\"", "\"\\ude97\"", "\"\\ud83dx\"",
        "\"\\ud83d\\u0041\"", "\"\\x\"", "\"\\u12\"", "\"\\u12g4\"", "\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"", "\"a\tb\"", "\"\u{7F}\"",
        "\"é 🚗\"", "{\"b\":1,\"a\":2,\"c\":{\"y\":[],\"x\":{}}}", "{\"a\":1,\"a\":2}", "{\"b\":1,\"a\":2,\"b\":3}",
        "{\"\":0}", "[[[[[[[[[[]]]]]]]]]]", "{\"a\":1,\"\\u0061\":2}", "{\"\\u0062\":1,\"a\":2}", "{\"b\\n\":1,\"b\\t\":2,\"a\":3}",
    ]

    @Test(arguments: edges)
    func readsOrRefusesAsJanssonDoes(text: String) {
        let ours = Result { () throws(JSONParseError) in try JSONValue.parse(text) }
        let theirs = Result { () throws(JSONParseError) in try JSONValue.parseWithJansson(Array(text.utf8)) }
        switch (ours, theirs) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure, .failure): break
        default: Issue.record("Deck: \(ours), jansson: \(theirs)")
        }
    }

    /// Valid JSON that Deck cannot hold (a number out of range, an escaped NUL or lone surrogate) is
    /// refused as such, with its place; marking reads it as NaN instead, and the rest as usual.
    @Test func aValueDeckCannotHoldIsRefusedOrMarked() throws {
        let refused = ["[9223372036854775808]": "integer out of range", "[-9223372036854775809]": "integer out of range",
                       "[1e309]": "real number overflow", "[-1e400]": "real number overflow", #"["a\u0000"]"#: "\\u0000 is not allowed",
                       #"["\udc00"]"#: "lone low surrogate", #"["\ud800x"]"#: "high surrogate", #"["\ud800\u0041"]"#: "high surrogate"]
        for (text, message) in refused {
            let error = try #require(throws: JSONParseError.self) { try JSONValue.parse(text) }
            #expect(error.kind == .unrepresentable && error.line == 1, "\(text)")
            #expect(error.message.hasPrefix(message), "\(text): \(error.message)")
        }
        let text = #"{"a": [1, 1e999, "x", "\ud800\ud83d\ude97"], "b": 18446744073709551616, "c": 2.5, "d\u0000": "y", "e": "\ud83d\ude97"}"#
        let marked = try JSONValue.parseMarkingUnrepresentable(Array(text.utf8))
        let a = try #require(marked["a"]?.arrayValue)
        #expect(a[1].doubleValue?.isNaN == true && a[3].doubleValue?.isNaN == true && marked["b"]?.doubleValue?.isNaN == true)
        #expect(marked["d\u{FFFD}"]?.doubleValue?.isNaN == true, "a key Deck cannot hold marks its member")
        #expect(a[0] == 1 && a[2] == "x" && marked["c"] == 2.5 && marked["e"] == "🚗")
        #expect(marked.holdsUnrepresentable && marked["a"]?.holdsUnrepresentable == true && marked["c"]?.holdsUnrepresentable == false)
        #expect(try JSONValue.parseMarkingUnrepresentable(Array("[9223372036854775807, 1e308]".utf8)) == [.int(.max), 1e308])
        #expect(throws: JSONParseError.self) { try JSONValue.parseMarkingUnrepresentable(Array("[1e999,]".utf8)) }
    }

    /// Bytes no valid UTF-8 has (overlong forms, surrogates, beyond U+10FFFF, stray continuations) are refused in strings.
    @Test(arguments: [[0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
                      [0x80], [0xC3], [0xE2, 0x82], [0xFF]] as [[UInt8]])
    func malformedUTF8IsRefused(bytes: [UInt8]) throws {
        let text = [0x22] + bytes + [0x22]
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        #expect(throws: JSONParseError.self) { try JSONValue.parseWithJansson(text) }
        #expect(try JSONValue.parse([0x22, 0xF0, 0x9F, 0x9A, 0x97, 0x22]) == "🚗")
    }

    /// Strings of every length around the eight-byte steps, with an escape, a non-ASCII character, a
    /// raw control character or a broken UTF-8 byte at each place: read or refused as jansson does.
    @Test func everyLengthAndSpecialPlaceReadsAsJanssonDoes() {
        let specials: [[UInt8]] = [Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\u0001"#.utf8), Array("é".utf8), [0x01], [0xC3], [0x80]]
        for length in 0...20 {
            for special in specials {
                for place in 0...length {
                    let text = [0x22] + Array(repeating: UInt8(ascii: "a"), count: place) + special
                        + Array(repeating: UInt8(ascii: "b"), count: length - place) + [0x22]
                    let ours = Result { () throws(JSONParseError) in try JSONValue.parse(text) }
                    let theirs = Result { () throws(JSONParseError) in try JSONValue.parseWithJansson(text) }
                    switch (ours, theirs) {
                    case (.success(let a), .success(let b)): #expect(a == b)
                    case (.failure, .failure): break
                    default: Issue.record("\(text): Deck \(ours), jansson \(theirs)")
                    }
                }
            }
        }
    }

    @Test func errorsNameTheLineAndTheCharacterAtFault() {
        func position(_ text: String) -> (Int, Int)? {
            do { _ = try JSONValue.parse(text); return nil } catch { return (error.line, error.column) }
        }
        #expect(position("[1,\n 2,\n ]")! == (3, 2))
        #expect(position("{\n  \"logLevel\": \"info\",,\n}")! == (2, 22))
        #expect(position("[\"é\", x]")! == (1, 7))
        #expect(position("{\"a\":1,\"a\":2}")! == (1, 8))
    }

    @Test func duplicateKeysAreRefusedWhereverTheyStand() {
        #expect { try JSONValue.parse(#"{"b":1,"c":2,"a":3,"b":4}"#) } throws: { error in
            (error as? JSONParseError)?.message.hasPrefix("duplicate object key \"b\"") == true && (error as? JSONParseError)?.column == 20
        }
    }

    /// Past 32 members an object out of order is sorted by index rather than in place; a duplicate
    /// among them is still refused at its second place.
    @Test func largeObjectsOutOfOrderAreSortedAndTheirDuplicatesFound() throws {
        let keys = (0..<40).map { "k\(String(format: "%02d", 39 - $0))" }
        let text = "{" + keys.map { "\"\($0)\":0" }.joined(separator: ",") + "}"
        #expect(try JSONValue.parse(text).objectValue?.keys == keys.sorted())
        let twice = "{" + (keys + ["k17"]).map { "\"\($0)\":0" }.joined(separator: ",") + "}"
        #expect { try JSONValue.parse(twice) } throws: { error in
            let error = error as? JSONParseError
            return error?.message.hasPrefix("duplicate object key \"k17\"") == true && error?.column == twice.count - 7
        }
    }

    @Test func membersAreKeptInKeyOrderWhateverOrderTheyCameIn() throws {
        let value = try JSONValue.parse(#"{"jsonrpc":"2.0","method":"x","id":7,"params":{"z":1,"a":2}}"#)
        #expect(value.objectValue?.keys == ["id", "jsonrpc", "method", "params"])
        #expect(value["params"]?.objectValue?.keys == ["a", "z"])
        #expect(value.encoded() == #"{"id":7,"jsonrpc":"2.0","method":"x","params":{"a":2,"z":1}}"#)
    }

    @Test func nestingIsBoundedWhileReading() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError(kind: .tooDeep, line: 0, column: 0, message: "JSON nesting deeper than the limit of 64 levels")) {
            try JSONValue.parse(deep)
        }
    }
}

extension JSONParserTests {
    /// Keys are bytes, as jansson compares them: "é" composed and decomposed are two keys, not a duplicate.
    @Test func keysThatSwiftCallsEqualButWhoseBytesDifferAreTwoKeys() throws {
        let text = "{\"e\u{301}\":1,\"\u{E9}\":2}"
        let value = try JSONValue.parse(text)
        #expect(value.objectValue?.count == 2)
        #expect(try JSONValue.parseWithJansson(Array(text.utf8)).objectValue?.count == 2)
    }
}

extension JSONParserTests {
    /// Reals read exactly as strtod reads them, bit for bit: those the parser computes itself (at
    /// most 2^53 in their digits, scaled by up to 10^22) and those it leaves to strtod, at the
    /// boundary between the two and on both sides of it.
    @Test func realsReadAsStrtodReadsThem() throws {
        var texts = ["0.0", "-0.0", "0e0", "-0e-400", "0.5", "44.1", "1e-3", "0.1", "0.2", "0.3", "1e22", "1e23", "1e-22", "1e-23",
                     "9007199254740992.0", "9007199254740993.0", "9007199254740991e22", "9007199254740993e-22",
                     "123456789012345678901234567890.5", "0.000000000000000000000000000001", "4.9e-324", "2.2250738585072014e-308",
                     "1.7976931348623157e308", "123.456e-5", "1E+2", "-7.25", "100000000000000000000000e-30", "5e0022", "3.0e-0000000022"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<20_000 {
            let whole = (0..<(1 + next(18))).map { _ in String(next(10)) }.joined()
            let fraction = (0..<next(18)).map { _ in String(next(10)) }.joined()
            var text = (next(2) == 0 ? "-" : "") + (whole.first == "0" ? "0" : whole) + (fraction.isEmpty ? "" : "." + fraction)
            if fraction.isEmpty || next(2) == 0 { text += "e" + String(next(61) - 30) }
            texts.append(text)
        }
        for text in texts {
            let ours = try #require(try JSONValue.parse(text).doubleValue, "\(text)")
            #expect(ours.bitPattern == strtod(text, nil).bitPattern, "\(text): \(ours), strtod \(strtod(text, nil))")
        }
    }
}
