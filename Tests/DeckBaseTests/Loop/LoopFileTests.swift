import Foundation
import Synchronization
import Testing
@testable import DeckBase
import DeckTestSupport

/// The loop's files: written in order by a thread of their own, failures and deletion reported
/// on the loop, and a landed write costing the loop nothing.
@Suite struct LoopFileTests {
    @Test func aLoopFileWritesChunksInOrderAndReportsFailures() throws {
        let loop = try EventLoop()
        let dir = TemporaryDirectory()
        let file = try LoopFile(loop: loop, path: dir.path + "/out.bin")
        var expected: [UInt8] = []
        for chunk in 0..<50 {
            let bytes = [UInt8](repeating: UInt8(chunk), count: 1000 + chunk)
            expected += bytes
            file.write(bytes)
        }
        var closed = false
        file.close { closed = true }
        loop.run()
        #expect(closed)
        #expect(!file.isOpen)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path + "/out.bin")) == Data(expected))

        #expect(throws: LoopFileError.system(dir.path + "/absent/out.bin", "No such file or directory")) {
            _ = try LoopFile(loop: loop, path: dir.path + "/absent/out.bin")
        }
    }

    @Test func aLoopFileNeverClobbersFollowsLinksOrOpensSpecialFiles() throws {
        let loop = try EventLoop()
        let dir = TemporaryDirectory()
        let existing = dir.path + "/existing.opus"
        try "keep me".write(toFile: existing, atomically: false, encoding: .utf8)
        #expect(throws: LoopFileError.exists(existing)) { _ = try LoopFile(loop: loop, path: existing) }
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")

        let link = dir.path + "/link.opus"
        let target = dir.path + "/target"
        symlink(target, link)
        #expect(throws: LoopFileError.symbolicLink(link)) { _ = try LoopFile(loop: loop, path: link, mode: .overwrite) }
        #expect(!FileManager.default.fileExists(atPath: target))

        // A FIFO with no reader would block open(2) for ever without O_NONBLOCK.
        let fifo = dir.path + "/fifo"
        mkfifo(fifo, 0o600)
        #expect(throws: LoopFileError.notRegular(fifo)) { _ = try LoopFile(loop: loop, path: fifo, mode: .overwrite) }
        #expect(throws: LoopFileError.notRegular("/dev/null")) { _ = try LoopFile(loop: loop, path: "/dev/null", mode: .overwrite) }
        // Asked for explicitly, a pipe is fine once a reader is there, and refused without one.
        #expect(throws: LoopFileError.noReader(fifo)) { _ = try LoopFile(loop: loop, path: fifo, mode: .pipe) }
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        defer { close(reader) }
        let piped = try LoopFile(loop: loop, path: fifo, mode: .pipe)
        piped.write([7, 8, 9])
        piped.close()
        loop.run()
        var received = [UInt8](repeating: 0, count: 3)
        #expect(read(reader, &received, 3) == 3 && received == [7, 8, 9])
        #expect(throws: LoopFileError.notPipe(existing)) { _ = try LoopFile(loop: loop, path: existing, mode: .pipe) }
        // A pipe asked for that is not there is said so, not as a file that could not be created.
        #expect(throws: LoopFileError.noPipe(dir.path + "/absent")) { _ = try LoopFile(loop: loop, path: dir.path + "/absent", mode: .pipe) }
        #expect(LoopFileError.noPipe("/x").description == "/x does not exist; ?pipe writes into a FIFO that is there (mkfifo makes one), and creates no file")

        // Overwriting is explicit, and then truncates a regular file.
        let file = try LoopFile(loop: loop, path: existing, mode: .overwrite)
        file.write([1, 2])
        file.close()
        loop.run()
        #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data([1, 2]))
    }

    @Test func aLoopFileNoticesItWasDeleted() throws {
        let loop = try EventLoop()
        let dir = TemporaryDirectory()
        let file = try LoopFile(loop: loop, path: dir.path + "/gone.bin")
        var deleted = 0
        file.onDeleted = { deleted += 1 }
        unlink(dir.path + "/gone.bin")
        let timer = try LoopTimer(loop: loop)
        timer.start(after: 0, repeat: 100) { file.write([0]) }
        #expect(turnLoop(loop, seconds: 5) { deleted == 1 })
        timer.close()
        file.close()
        loop.run()
        #expect(deleted == 1)
    }

    @Test func writesToAFullDeviceAreReportedNotFatal() throws {
        let loop = try EventLoop()
        let file = try LoopFile(loop: loop, path: "/dev/full", mode: .pipe)
        var errors: [LoopError] = [], lost: [Int] = []
        file.onError = { errors.append($0); lost.append($1) }
        // An open file does not keep the loop running (a close does); here a timer does.
        let keepAlive = try LoopTimer(loop: loop)
        keepAlive.start(after: 1_000, repeat: 1_000) {}
        file.write([1, 2, 3])
        usleep(200_000)  // the writer fails it; the loop has not turned, so nobody heard yet
        #expect(!file.isIdle, "not idle while a failure waits to be heard")
        #expect(turnLoop(loop) { errors.count == 1 })
        #expect(file.isIdle)
        keepAlive.close()
        file.write([4])
        file.close()
        loop.run()
        #expect(errors.count == 2)
        #expect(errors.first?.description == "writing: no space left on device (ENOSPC)")
        #expect(lost == [3, 1], "each failure names the bytes it lost")
        #expect(!file.isOpen && file.isIdle)
    }

    @Test func writesThatLandCostTheLoopNoWakeUp() throws {
        let loop = try EventLoop()
        let dir = TemporaryDirectory()
        let file = try LoopFile(loop: loop, path: dir.path + "/quiet.bin")
        let timer = try LoopTimer(loop: loop)
        var fires = 0
        let before = try voluntarySwitches()
        // Each tick wakes the loop once; a write whose landing woke it too would double the count.
        timer.start(after: 20, repeat: 20) {
            fires += 1
            file.write([UInt8](repeating: UInt8(fires), count: 4096))
            if fires == 25 { timer.close() }
        }
        loop.run()
        let wakeUps = try voluntarySwitches() - before
        #expect(fires == 25)
        #expect(wakeUps <= fires + 8, "the loop slept \(wakeUps) times for \(fires) timer ticks")
        var closed = false
        file.close { closed = true }
        loop.run()
        #expect(closed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path + "/quiet.bin")).count == 25 * 4096)
    }

    @Test func aWriterStuckInAWriteTakesNoMoreThanItsBacklog() throws {
        let loop = try EventLoop()
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)  // blocking, and nobody reads yet: the writer stalls as on a disk that stopped
        defer { close(ends[0]) }
        let doorbell = try AsyncDoorbell(loop: loop) {}
        defer { doorbell.close() }
        let writer = try FileWriter(descriptor: ends[1], ringer: doorbell.ringer, maxPendingBytes: 256 * 1024)
        // 1 MiB in 16 KiB pages: what the pipe holds, the batch in the stuck write and a full backlog are taken, no more.
        let pipeBytes = Int(fcntl(ends[1], 1032))  // F_GETPIPE_SZ
        var taken: [UInt8] = []
        for page in 0..<64 where writer.append([UInt8](repeating: UInt8(page), count: 16 * 1024)) { taken.append(UInt8(page)) }
        #expect(pipeBytes >= 4096 && pipeBytes <= 256 * 1024)
        #expect(taken.count >= 16 && taken.count <= (pipeBytes + 2 * 256 * 1024) / (16 * 1024), "\(taken.count) pages taken")
        #expect(writer.pendingBytes <= 256 * 1024)
        // Once the reader drains the pipe, every page taken lands whole and in order, then the file closes.
        writer.close()
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while case let count = read(ends[0], &buffer, buffer.count), count > 0 { received += buffer[..<count] }
        #expect(received == taken.flatMap { [UInt8](repeating: $0, count: 16 * 1024) })
    }

    /// How many times the calling thread has blocked (each sleep of the loop is one).
    private func voluntarySwitches() throws -> Int {
        let status = try String(contentsOfFile: "/proc/thread-self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }),
              let count = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) else {
            throw CommandFailure(description: "no voluntary_ctxt_switches in /proc/thread-self/status")
        }
        return count
    }
}
