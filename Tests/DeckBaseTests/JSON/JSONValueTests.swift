import CJansson
import Foundation
import Testing
@testable import DeckBase
import DeckTestSupport

@Suite struct JSONValueTests {
    @Test func parsesEveryJSONType() throws {
        let value = try JSONValue.parse(#"{"a":[1,2.5,"x",true,false,null],"b":{"c":-7}}"#)
        #expect(value == ["a": [1, 2.5, "x", true, false, nil], "b": ["c": -7]])
    }

    @Test func scalarsAreAllowedAtTheTopLevel() throws {
        #expect(try JSONValue.parse("42") == 42)
        #expect(try JSONValue.parse(#""text""#) == "text")
    }

    @Test func syntaxErrorsCarryLineAndColumn() {
        #expect {
            try JSONValue.parse("[1,\n 2,\n ]")
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.kind == .syntax && error.line == 3 && error.column == 2
        }
    }

    @Test func duplicateKeysAreRefused() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(#"{"a":1,"a":2}"#) }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func textOverTheSizeLimitIsRefusedBeforeParsing() throws {
        let limits = JSONLimits(maxBytes: 8, maxDepth: 64)
        #expect(throws: JSONParseError(kind: .tooLarge, line: 0, column: 0,
                                       message: "JSON text of 9 bytes exceeds the limit of 8 bytes")) {
            try JSONValue.parse("[1,2,3,4]", limits: limits)
        }
        #expect(try JSONValue.parse("[1,2,3]", limits: limits) == [1, 2, 3])
    }

    @Test func nestingDeeperThanTheLimitIsRefused() throws {
        let limits = JSONLimits(maxBytes: 1 << 20, maxDepth: 3)
        #expect(try JSONValue.parse("[[[1]]]", limits: limits) == [[[1]]])
        #expect(throws: JSONParseError(kind: .tooDeep, line: 0, column: 0, message: "JSON nesting deeper than the limit of 3 levels")) {
            try JSONValue.parse(#"[[{"a":[]}]]"#, limits: limits)
        }
    }

    /// `merging` walks both objects once; what it gives must be what setting the members one by one gives.
    static let merges: [(JSONObject, JSONObject)] = [
        ([:], ["b": 1]),
        (["b": 1], [:]),
        (["a": 1, "c": 3, "e": 5], ["b": 2, "d": 4, "f": 6]),
        (["a": 1, "b": 2, "id": 3, "text": "old"], ["id": 7, "key": "k", "text": "new"]),
        (["z": 1, "é": 2, "A": 3], ["a": 4, "z": 5, "Z": 6]),
    ]

    @Test(arguments: merges)
    func mergingKeepsKeyOrderAndTheOtherObjectsValues(base: JSONObject, other: JSONObject) {
        var oneByOne = base
        for (key, value) in other { oneByOne[key] = value }
        let merged = base.merging(other)
        var mergedInPlace = base
        mergedInPlace.merge(other)
        #expect(merged == oneByOne)
        #expect(mergedInPlace == oneByOne)
        #expect(merged.keys == oneByOne.keys.sorted { JSONObject.order($0, $1) < 0 })
        #expect(JSONValue.object(merged).encoded() == JSONValue.object(oneByOne).encoded())
    }

    @Test func encodesCompactlyWithSortedKeys() {
        let value: JSONValue = ["b": [1, "two", nil], "a": ["x": true], "c": 1.5]
        #expect(value.encoded() == #"{"a":{"x":true},"b":[1,"two",null],"c":1.5}"#)
    }

    @Test func encodingRoundTripsStringsWithEscapesAndNUL() throws {
        let value: JSONValue = ["key\u{0}with nul": "line\n\"quoted\" \u{1F697} \u{0}"]
        let text = value.encoded()
        #expect(text.contains(#"\u0000"#))
        // jansson refuses NUL on input unless asked; the encoder must still produce valid escapes.
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        let plain: JSONValue = ["k": "line\n\"quoted\" \u{1F697}", "": ""]
        #expect(try JSONValue.parse(plain.encoded()) == plain)
    }

    /// Integers at their edges and keys in UTF-8 byte order, written as jansson writes the same
    /// document (JSON_COMPACT | JSON_SORT_KEYS); every escape JSON needs, and no other.
    @Test func encodesAsJanssonDoes() throws {
        let text = #"{"é":1,"z":-9223372036854775808,"Z":9223372036854775807,"a b":[0,7,-7,10,-10,1234567890],"#
            + #""":"","aa":{"a":null,"A":false,"aA":true}}"#
        let value = try JSONValue.parse(text)
        var error = json_error_t()
        let tree = try #require(json_loads(text, 0, &error))
        defer { json_decref(tree) }
        let dumped = try #require(json_dumps(tree, Int(JSON_COMPACT | JSON_SORT_KEYS)))
        defer { free(dumped) }
        #expect(value.encoded() == String(cString: dumped))
        let escaped: JSONValue = .string("\"\\/\u{8}\u{c}\n\r\t\u{1}\u{1f} \u{7f} ü 🚗")
        #expect(escaped.encoded() == #""\"\\/\u0008\u000c\n\r\t\u0001\u001f "# + "\u{7f} ü 🚗\"")
        #expect(try JSONValue.parse(escaped.encoded()) == escaped)
    }

    @Test func nonFiniteNumbersEncodeAsNull() {
        #expect(JSONValue.array([.double(.nan), .double(.infinity)]).encoded() == "[null,null]")
    }

    @Test func filesAreReadWithTheirPathInErrors() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/bad.json"
        try "{\"a\": }".write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            try JSONValue.parse(contentsOfFile: path)
        } throws: { error in
            (error as? JSONFileError)?.description.hasPrefix("\(path) is not valid JSON: line 1, column 7") == true
        }
        #expect(throws: JSONFileError.unreadable(path: dir.path + "/absent.json", reason: "No such file or directory")) {
            try JSONValue.parse(contentsOfFile: dir.path + "/absent.json")
        }
    }

    /// A config, policy or manifest saved by a Windows editor begins with a UTF-8 byte order mark.
    @Test func aFilesByteOrderMarkIsSkipped() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/deck.json"
        try "\u{FEFF}{\"logLevel\": \"info\"}".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try JSONValue.parse(contentsOfFile: path) == ["logLevel": "info"])
        try "\u{FEFF}\u{FEFF}{}".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: JSONFileError.self) { try JSONValue.parse(contentsOfFile: path) }
    }
}

extension JSONValueTests {
    @Test(arguments: [("[]", 0), ("[1]", 1), (" [1, [2, 3], {\"a\": [4, 5]}, \"x,]y\", \"\\\",\"]", 5), ("{\"a\": [1, 2]}", -1), ("3", -1)])
    func topLevelArraysAreCountedWithoutParsing(text: String, count: Int) {
        #expect(JSONValue.topLevelElementCount(Array(text.utf8)) == (count < 0 ? nil : count))
    }

    @Test func anArrayOverTheElementLimitIsRefusedBeforeItIsParsed() {
        let text = "[" + Array(repeating: "{}", count: 1_000).joined(separator: ",") + "]"
        #expect(throws: JSONParseError(kind: .tooManyElements(1_000), line: 0, column: 0,
                                       message: "a top-level array of 1000 elements exceeds the limit of 100")) {
            try JSONValue.parse(text, limits: JSONLimits(maxTopLevelElements: 100))
        }
        #expect(throws: Never.self) { try JSONValue.parse(text, limits: JSONLimits(maxTopLevelElements: 1_000)) }
    }
}
