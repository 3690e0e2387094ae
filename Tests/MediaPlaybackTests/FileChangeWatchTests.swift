import DeckTestSupport
import Foundation
import MediaPlayback
import Testing

/// What ends a `FileChangeWatch`'s wait: a change to what it watches (once 250 ms pass without
/// another), `wake()`, or its time limit; never a change to an entry it was not asked about.
@Suite struct FileChangeWatchTests {
    let dir = TemporaryDirectory()

    /// Milliseconds `wait(atMost: 1000)` took.
    private func timedWait(_ watch: FileChangeWatch) -> Int {
        let started = Date()
        watch.wait(atMost: 1_000)
        return Int(Date().timeIntervalSince(started) * 1000)
    }

    @Test func aFileWrittenInAWatchedFolderEndsTheWaitOnceItSettles() throws {
        let watch = try #require(FileChangeWatch())
        #expect(watch.add(folder: dir.path))
        try "a".write(toFile: dir.path + "/new.txt", atomically: false, encoding: .utf8)
        let waited = timedWait(watch)
        #expect((240..<900).contains(waited), "\(waited) ms")
    }

    @Test func aFolderRemovedWithItsFilesEndsTheWait() throws {
        try FileManager.default.createDirectory(atPath: dir.path + "/album", withIntermediateDirectories: false)
        try "a".write(toFile: dir.path + "/album/1.flac", atomically: false, encoding: .utf8)
        let watch = try #require(FileChangeWatch())
        #expect(watch.add(folder: dir.path) && watch.add(folder: dir.path + "/album"))
        try FileManager.default.removeItem(atPath: dir.path + "/album")
        #expect(timedWait(watch) < 900)
        // Watching again what is left, after the removed folder's watch went.
        #expect(watch.add(folder: dir.path))
        try "b".write(toFile: dir.path + "/next.flac", atomically: false, encoding: .utf8)
        #expect(timedWait(watch) < 900)
    }

    @Test func onlyTheNamedEntriesOfAFolderCount() throws {
        let watch = try #require(FileChangeWatch())
        #expect(watch.add(folder: dir.path, only: ["stations.json"]))
        try "noise".write(toFile: dir.path + "/out.opus", atomically: false, encoding: .utf8)
        #expect(timedWait(watch) >= 1_000, "a file beside the named one is not a change")
        try "[]".write(toFile: dir.path + "/stations.json", atomically: true, encoding: .utf8)
        #expect(timedWait(watch) < 900)
    }

    @Test func aFolderAskedForWholeAndForSomeNamesCountsWhole() throws {
        try "noise".write(toFile: dir.path + "/out.opus", atomically: false, encoding: .utf8)
        let watch = try #require(FileChangeWatch())
        #expect(watch.add(folder: dir.path) && watch.add(folder: dir.path, only: ["music"]))
        try "more noise".write(toFile: dir.path + "/out.opus", atomically: false, encoding: .utf8)  // written in place
        #expect(timedWait(watch) < 900)
    }

    @Test func aWatchedFileWrittenInPlaceEndsTheWait() throws {
        let path = dir.path + "/list.json"
        try "[]".write(toFile: path, atomically: false, encoding: .utf8)
        let watch = try #require(FileChangeWatch())
        watch.add(file: path)
        try "[1]".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(timedWait(watch) < 900)
    }

    @Test func wakeEndsTheWaitAtOnceAndNothingElseDoes() throws {
        let watch = try #require(FileChangeWatch())
        #expect(watch.add(folder: dir.path))
        #expect(timedWait(watch) >= 1_000)
        watch.wake()
        #expect(timedWait(watch) < 100)
    }
}
