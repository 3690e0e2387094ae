import Glibc

/// A JSON object's members, kept in key order (UTF-8 bytes compared, as jansson's JSON_SORT_KEYS
/// sorts): written without sorting, looked up by binary search, the same text every run.
public struct JSONObject: Equatable, Sendable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: String, value: JSONValue)
    /// One member; a struct rather than a tuple, so arrays of them need no runtime type look-up.
    public struct Member: Sendable {
        var key: String
        var value: JSONValue

        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }
    private(set) var members: [Member]

    public init() { members = [] }

    /// Members already in strictly increasing key order (the parser checks that before it calls this).
    init(ordered members: [Member]) { self.members = members }

    /// Members written in key order, as the hot answers are: taken as they are once checked (a
    /// dictionary literal builds and destroys an array of tuples besides), sorted if they are not.
    public init(inKeyOrder members: [Member]) {
        let inOrder = members.withUnsafeBufferPointer { members in
            members.indices.dropFirst().allSatisfy { JSONObject.order(members[$0 - 1].key, members[$0].key) < 0 }
        }
        if inOrder {
            self.init(ordered: members)
        } else {
            self.init(sorting: members)
        }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(unsorted: elements)
    }

    /// Members in any order (a literal's); of a key given twice, the last value stays.
    init(unsorted elements: [(String, JSONValue)]) {
        self.init(inKeyOrder: elements.map { Member($0.0, $0.1) })
    }

    /// Members out of order, sorted once; of a key given twice, the last value stays.
    private init(sorting given: [Member]) {
        members = []
        members.reserveCapacity(given.count)
        guard given.count <= 32 else {
            for member in given { self[member.key] = member.value }
            return
        }
        // Insertion from the end: members mostly in order cost one comparison each.
        next: for member in given {
            var place = members.count
            while place > 0 {
                let order = JSONObject.order(members[place - 1].key, member.key)
                if order < 0 { break }
                if order == 0 {
                    members[place - 1].value = member.value
                    continue next
                }
                place -= 1
            }
            members.insert(member, at: place)
        }
    }

    public init(_ dictionary: [String: JSONValue]) {
        members = dictionary.map { Member($0.key, $0.value) }
        members.sort { JSONObject.order($0.key, $1.key) < 0 }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { members.count }
    public subscript(position: Int) -> Element { (members[position].key, members[position].value) }

    public var keys: [String] { members.map(\.key) }

    /// The member named `key`; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get {
            let (index, found) = place(of: key)
            guard found else { return nil }
            return members[index].value
        }
        set {
            let (index, found) = place(of: key)
            switch (found, newValue) {
            case (true, let value?): members[index].value = value
            case (true, nil): members.remove(at: index)
            case (false, let value?): members.insert(Member(key, value), at: index)
            case (false, nil): break
            }
        }
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        let (index, found) = place(of: key)
        guard found else { return nil }
        return members.remove(at: index).value
    }

    /// Each member's value transformed, keys and order kept.
    public func mapValues(_ transform: (JSONValue) throws -> JSONValue) rethrows -> JSONObject {
        JSONObject(ordered: try members.map { Member($0.key, try transform($0.value)) })
    }

    /// `other`'s members added, replacing members of the same key (as `merging` does).
    public mutating func merge(_ other: JSONObject) {
        self = merging(other)
    }

    /// A new object of both objects' members, `other`'s replacing members of the same key: one pass
    /// over both (each is in key order) into storage of the right size, where setting the members one
    /// by one would copy this object's storage, then grow and shift it.
    public func merging(_ other: JSONObject) -> JSONObject {
        guard !members.isEmpty else { return other }
        guard !other.members.isEmpty else { return self }
        var merged: [Member] = []
        merged.reserveCapacity(members.count + other.members.count)
        var mine = 0, theirs = 0
        while mine < members.count && theirs < other.members.count {
            let order = JSONObject.order(members[mine].key, other.members[theirs].key)
            if order < 0 {
                merged.append(members[mine])
                mine += 1
            } else {
                merged.append(other.members[theirs])
                theirs += 1
                if order == 0 { mine += 1 }
            }
        }
        merged.append(contentsOf: members[mine...])
        merged.append(contentsOf: other.members[theirs...])
        return JSONObject(ordered: merged)
    }

    /// Keys equal as bytes, as everywhere in an object; values as `JSONValue` compares them.
    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.members.count == b.members.count
            && zip(a.members, b.members).allSatisfy { JSONObject.order($0.key, $1.key) == 0 && $0.value == $1.value }
    }

    /// Where `key` is, or where it would go: its bytes taken once, each probe's lent in place.
    private func place(of key: String) -> (index: Int, found: Bool) {
        var key = key
        return key.withUTF8 { sought in
            members.withUnsafeBufferPointer { members in
                var low = 0, high = members.count
                while low < high {
                    let middle = (low + high) / 2
                    let order = JSONObject.order(members[middle].key, UnsafeRawBufferPointer(sought))
                    if order == 0 { return (middle, true) }
                    if order < 0 { low = middle + 1 } else { high = middle }
                }
                return (low, false)
            }
        }
    }

    /// Negative, zero or positive as `a` sorts before, with or after `b` by their UTF-8 bytes.
    static func order(_ a: String, _ b: String) -> Int {
        // Native strings (all that Deck builds or parses) lend their bytes; small ones from the stack.
        let lent: Int?? = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in order(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) }
        }
        if case let order?? = lent { return order }
        var x = a.utf8.makeIterator(), y = b.utf8.makeIterator()
        while true {
            switch (x.next(), y.next()) {
            case let (p?, q?): if p != q { return Int(p) - Int(q) }
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            }
        }
    }

    /// `a` against bytes already at hand.
    static func order(_ a: String, _ y: UnsafeRawBufferPointer) -> Int {
        if let order = a.utf8.withContiguousStorageIfAvailable({ order(UnsafeRawBufferPointer($0), y) }) { return order }
        var a = a
        return a.withUTF8 { order(UnsafeRawBufferPointer($0), y) }
    }

    /// Keys mostly differ in their first bytes, and are short: a loop beats a call to memcmp.
    static func order(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Int {
        for index in 0..<Swift.min(x.count, y.count) where x[index] != y[index] { return Int(x[index]) - Int(y[index]) }
        return x.count - y.count
    }
}
