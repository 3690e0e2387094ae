import DeckBase
import Testing

/// Writing JSON: compact for the wire, indented for people (deckctl), reals in full or to a
/// precision people read.
@Suite struct JSONValueEncodingTests {
    let value: JSONValue = ["b": [1, 2.5, ["x": .null]], "a": "é\n", "e": [], "o": [:], "g": 0.19952623546123505]

    @Test func compactIsOneLineWithSortedKeys() throws {
        #expect(value.encoded() == #"{"a":"é\n","b":[1,2.5,{"x":null}],"e":[],"g":0.19952623546123505,"o":{}}"#)
        #expect(try JSONValue.parse(value.encoded()) == value)
    }

    @Test func prettyIndentsEachMemberAndElementByTwoSpacesAsJanssonDoes() throws {
        let pretty = value.prettyEncoded(realPrecision: 15)
        #expect(pretty == """
            {
              "a": "é\\n",
              "b": [
                1,
                2.5,
                {
                  "x": null
                }
              ],
              "e": [],
              "g": 0.199526235461235,
              "o": {}
            }
            """)
    }

    /// Reals are written as Swift's shortest round-trip form, whole ones included (which take a path of their own).
    @Test(arguments: [0.0, -0.0, 1.0, -1.0, 15.0, -123.0, 0.5, 1e-5, 1e15, 9_007_199_254_740_991.0, 9_007_199_254_740_992.0, 1e16, -1e300, 2.5])
    func realsAreWrittenAsTheirShortestForm(value: Double) {
        #expect(JSONValue.double(value).encoded() == value.description)
    }

    @Test func aPrecisionKeepsRealsReal() {
        #expect(JSONValue.double(1).encoded(realPrecision: 15) == "1.0")
        #expect(JSONValue.double(8.84).encoded(realPrecision: 15) == "8.84")
        #expect(JSONValue.double(1e300).encoded(realPrecision: 15) == "1e+300")
        #expect(JSONValue.double(.nan).encoded(realPrecision: 15) == "null")
        #expect(JSONValue.double(0.1 + 0.2).encoded() == "0.30000000000000004")
    }
}

extension JSONValueEncodingTests {
    /// Strings of every length around the eight-byte steps, with an escape at each place (and
    /// made of escapes only), are written as RFC 8259 escapes them and read back equal.
    @Test func everyLengthAndEscapePlaceReadsBack() throws {
        func expected(_ text: String) -> String {
            let escapes: [Character: String] = ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\u{1}": "\\u0001"]
            return "\"" + text.map { escapes[$0] ?? String($0) }.joined() + "\""
        }
        for length in 0...20 {
            let plain = String(repeating: "a", count: length)
            #expect(JSONValue.string(plain).encoded() == expected(plain))
            for special in ["\"", "\\", "\n", "\u{1}", "é"] {
                let all = String(repeating: special, count: length)
                #expect(JSONValue.string(all).encoded() == expected(all))
                for place in 0..<length {
                    var characters = Array(plain)
                    characters[place] = Character(special)
                    let text = String(characters)
                    #expect(JSONValue.string(text).encoded() == expected(text))
                    #expect(try JSONValue.parse(JSONValue.string(text).encoded()) == .string(text))
                }
            }
        }
    }
}
