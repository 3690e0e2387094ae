import Glibc
import Testing
@testable import DeckBase

/// The parser's stacks keep their storage between parses on a thread, up to a bound, and no longer.
@Suite struct ScratchCacheTests {
    private static func object(members: Int) -> String {
        "{" + (0..<members).map { "\"k\(100_000 + $0)\":\($0)" }.joined(separator: ",") + "}"
    }

    @Test func aParseLeavesItsStacksForTheThreadsNextParse() throws {
        _ = ScratchCache.take(.members)
        let value = try JSONValue.parse(Self.object(members: 100))
        #expect(value.objectValue?.count == 100)
        let kept = try #require(ScratchCache.take(.members))
        #expect(kept.bytes >= 100 * MemoryLayout<JSONObject.Member>.stride)
        ScratchCache.give(.members, kept.storage, bytes: kept.bytes)
        // The next parse starts on that storage: nothing is left in the slot while it runs, and it is back after.
        #expect(try JSONValue.parse(Self.object(members: 3)).objectValue?.count == 3)
        #expect(ScratchCache.take(.members)?.storage == kept.storage)
    }

    @Test func storageOverTheBoundIsFreedNotKept() throws {
        _ = ScratchCache.take(.members)
        let members = ScratchCache.keptBytes / MemoryLayout<JSONObject.Member>.stride + 1
        #expect(try JSONValue.parse(Self.object(members: members)).objectValue?.count == members)
        #expect(ScratchCache.take(.members) == nil)
    }

    @Test func aRefusedTextLeavesItsStacksEmptyAndKept() throws {
        _ = ScratchCache.take(.members)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(String(Self.object(members: 40).dropLast()) + ",\"k100000\":1}") }
        let kept = try #require(ScratchCache.take(.members))
        ScratchCache.give(.members, kept.storage, bytes: kept.bytes)
        #expect(try JSONValue.parse(Self.object(members: 40)) == JSONValue.parse(Self.object(members: 40)))
    }

    @Test func eachThreadHasItsOwn() throws {
        _ = try JSONValue.parse(Self.object(members: 20))
        let mine = ScratchCache.take(.members)
        #expect(mine != nil)
        final class Box: @unchecked Sendable { var sawStorage = true }  // written by the thread before the join reads it
        let box = Box()
        var thread = pthread_t()
        let context = Unmanaged.passRetained(box).toOpaque()
        #expect(pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.sawStorage = ScratchCache.take(.members) != nil
            return nil
        }, context) == 0)
        pthread_join(thread, nil)
        #expect(!box.sawStorage)
        if let mine { ScratchCache.give(.members, mine.storage, bytes: mine.bytes) }
    }
}
