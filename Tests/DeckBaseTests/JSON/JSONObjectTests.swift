import DeckBase
import Testing

/// An object's members stay in key order (UTF-8 bytes), however they are added, so text written
/// from it never needs sorting and reads the same every run.
@Suite struct JSONObjectTests {
    @Test func membersStayInByteOrderAsTheyAreSetAndRemoved() {
        var object: JSONObject = ["b": 1, "a": 2, "é": 3, "Z": 4]
        #expect(object.keys == ["Z", "a", "b", "é"])
        object["aa"] = 5
        object["b"] = nil
        object["a"] = 6
        #expect(object.keys == ["Z", "a", "aa", "é"])
        #expect(object["a"] == .int(6))
        #expect(object["b"] == Optional<JSONValue>.none)
        #expect(object.count == 4)
        #expect(object.removeValue(forKey: "Z") == 4)
        #expect(JSONValue.object(object).encoded() == #"{"a":6,"aa":5,"é":3}"#)
    }

    @Test func aDictionaryLiteralsLastValueWins() {
        let object: JSONObject = ["k": 1, "k": 2]
        #expect(object.count == 1 && object["k"] == 2)
    }

    @Test func membersGivenInKeyOrderAreKeptAndOthersAreSorted() {
        let ordered = JSONObject(inKeyOrder: [.init("a", 1), .init("b", 2), .init("é", 3)])
        #expect(ordered.keys == ["a", "b", "é"] && ordered["b"] == 2)
        // Out of order or repeated: sorted as a literal would be, the last value of a key kept.
        let unordered = JSONObject(inKeyOrder: [.init("b", 1), .init("a", 2), .init("b", 3)])
        #expect(unordered.keys == ["a", "b"] && unordered["b"] == 3)
        #expect(JSONValue.object(unordered).encoded() == #"{"a":2,"b":3}"#)
    }

    @Test func aSwiftDictionaryIsSortedOnce() {
        let object = JSONObject(["c": 1, "a": 2, "b": 3])
        #expect(object.keys == ["a", "b", "c"])
        #expect(object.merging(["a": 9, "d": 4]) == ["a": 9, "b": 3, "c": 1, "d": 4])
        #expect(object.mapValues { _ in .null }.keys == object.keys)
    }
}
