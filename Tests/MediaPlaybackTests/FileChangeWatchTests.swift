import DeckTestSupport
import Foundation
@testable import MediaPlayback
import Testing

/// What ends a `FileChangeWatch`'s wait: a change to what it watches (once 250 ms pass without
/// another), `wake()`, or its time limit; never a change to an entry or a mount it was not asked about.
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

    @Test func aMountInUnderOrAboveTheFoldersEndsTheWaitAndOneElsewhereDoesNot() throws {
        try #require(geteuid() == 0, "mounting takes root")
        let music = dir.path + "/media/music", elsewhere = dir.path + "/containers/one"
        for folder in [music + "/stick", elsewhere] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let watch = try #require(FileChangeWatch())
        #expect(watch.addMounts(around: [dir.path + "/media/./music"]))
        /// Milliseconds a wait took with a tmpfs mounted at `point`; unmounted when it returns.
        func mounted(at point: String) throws -> Int {
            #expect(try runProgram("/bin/mount", ["-t", "tmpfs", "deck-test", point]).status == 0)
            defer { _ = try? runProgram("/bin/umount", ["--lazy", point]) }
            return timedWait(watch)
        }
        let waits = [try mounted(at: elsewhere), timedWait(watch), try mounted(at: music + "/stick"), timedWait(watch),
                     try mounted(at: dir.path + "/media"), timedWait(watch)]
        // Mounted and unmounted beside the folders, in one, over one's parent.
        #expect(waits[0] >= 1_000 && waits[1] >= 1_000, "a mount beside the folders is not a change: \(waits) ms")
        #expect(waits[2...].allSatisfy { $0 < 900 }, "a stick in a media folder, or a mount over its parent, is: \(waits) ms")
    }

    @Test func aMountPointIsReadFromItsMountinfoLineWithItsEscapes() {
        let line = #"36 35 98:0 /mnt1 /media/My\040Stick\134x rw,noatime master:1 - vfat /dev/sdb1 rw"#
        #expect(FileChangeWatch.mountPoint(of: line) == #"/media/My Stick\x"#)
        #expect(FileChangeWatch.mountPoint(of: "garbage") == "")
    }

    @Test func aFolderIsResolvedAsFarAsItExists() throws {
        try FileManager.default.createDirectory(atPath: dir.path + "/real", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/link", withDestinationPath: dir.path + "/real")
        let real = FileChangeWatch.resolved(dir.path + "/real")
        #expect(FileChangeWatch.resolved(dir.path + "/link/stick/music") == real + "/stick/music")
        #expect(FileChangeWatch.resolved(dir.path + "/link") == real)
    }
}
