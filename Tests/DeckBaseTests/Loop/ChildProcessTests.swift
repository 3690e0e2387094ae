import DeckTestSupport
import Foundation
import Testing
@testable import DeckBase

/// Child processes are watched on the loop through a pidfd, or polled where the kernel has none;
/// either way their end is reported once, with how they ended, and none is left behind.
@Suite struct ChildProcessTests {
    @Test(arguments: [true, false])
    func anExitAndASignalAreReportedAsTheyHappened(pidfd: Bool) throws {
        let loop = try EventLoop()
        var endings: [ChildProcess.Ending] = []
        let exits = try ChildProcess(loop: loop, path: "/bin/sh", arguments: ["-c", "exit 3"], descriptors: [], pidfd: pidfd)
        exits.onExit = { endings.append($0) }
        #expect(turnLoop(loop) { endings.count == 1 })
        #expect(endings == [.exited(3)])
        let sleeps = try ChildProcess(loop: loop, path: "/bin/sleep", arguments: ["10"], descriptors: [], pidfd: pidfd)
        sleeps.onExit = { endings.append($0) }
        sleeps.kill(SIGTERM)
        #expect(turnLoop(loop) { endings.count == 2 })
        #expect(endings.last == .killed(signal: SIGTERM))
        #expect(endings.last?.description == "was killed by signal 15 (SIGTERM)")
        #expect(!sleeps.isRunning)
    }

    @Test(arguments: [true, false])
    func descriptorsAndEnvironmentArePassedAndNothingIsLeftBehind(pidfd: Bool) throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let child = try ChildProcess(loop: loop, path: "/bin/sh",
                                     arguments: ["-c", "echo \"$DECK_TEST_NAME $HOME\" >&3; ls /proc/self/fd | wc -l >&3; sleep 10"],
                                     descriptors: [fds[1]], environment: ["DECK_TEST_NAME=child", "HOME=/not-ours"], pidfd: pidfd)
        close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 256)
        var text = ""
        while text.split(separator: "\n").count < 2 {
            let count = read(fds[0], &buffer, buffer.count)
            guard count > 0 else { break }
            text += String(decoding: buffer[..<count], as: UTF8.self)
        }
        let lines = text.split(separator: "\n")
        #expect(lines.first.map(String.init) == "child \(ProcessInfo.processInfo.environment["HOME"] ?? "")")  // ours win
        #expect(Int(lines.last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 99 <= 5)  // 0-2, 3, and ls's own
        let pid = child.pid
        child.close()  // still running: killed and reaped
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
        close(fds[0])
    }

    /// An isolated child (a plugin's host) gets only the environment it is given and /dev/null as
    /// its standard streams: nothing of ours, and nowhere near our output.
    @Test func anIsolatedChildGetsOnlyItsEnvironmentAndNullStandardStreams() throws {
        let loop = try EventLoop()
        setenv("DECK_TEST_SECRET", "s3cret", 1)
        defer { unsetenv("DECK_TEST_SECRET") }
        let child = try ChildProcess(loop: loop, path: "/bin/sleep", arguments: ["10"], descriptors: [],
                                     environment: ["ONLY=this"], inheritEnvironment: false, isolated: true)
        defer { child.kill(SIGKILL) }
        var environment = ""
        for _ in 0..<100 where environment.isEmpty {  // until the exec is done
            environment = (try? String(contentsOfFile: "/proc/\(child.pid)/environ", encoding: .utf8)) ?? ""
            if !environment.contains("ONLY") { environment = ""; usleep(10_000) }
        }
        #expect(environment == "ONLY=this\0")
        for fd in 0...2 {
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child.pid)/fd/\(fd)") == "/dev/null")
        }
    }
}
