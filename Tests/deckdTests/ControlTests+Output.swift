import DeckTestSupport
import Foundation
import Testing

/// deckctl's own output: what it cannot write is an error, as for `echo > /dev/full`.
extension ControlTests {
    /// An answer or a help text written to a full disk is named on stderr with status 1, not a
    /// success whose output went nowhere.
    @Test func outputToAFullDiskIsAnError() throws {
        let deckd = try daemon()
        for arguments in [["--socket", deckd.socket, "status"], ["--help"]] {
            let result = try runProgram("/bin/sh", ["-c", "exec \"$@\" > /dev/full", "sh", deckctl] + arguments)
            #expect(result.status == 1 && result.output == "deckctl: cannot write the output: No space left on device\n",
                    "\(arguments): \(result.status) \(result.output)")
        }
        #expect(deckd.stop() == 0)
    }

    /// A follower whose reader went away while SIGPIPE is ignored (as many parents leave it) ends
    /// at the next change, saying why, rather than follow into nothing for good.
    @Test func aFollowerWhoseReaderIsGoneEnds() throws {
        let deckd = try daemon(["--play", "org.deck.tone"])
        let dir = TemporaryDirectory()
        let errors = dir.path + "/errors.txt"
        let pipeline = try ChildProgram("/bin/sh", ["-c", "trap '' PIPE; \"$0\" --socket \"$1\" now-playing --follow 2> \"$2\" | head -c 1 > /dev/null",
                                                    deckctl, deckd.socket, errors])
        var changes = 0
        while pipeline.isRunning && changes < 50 {
            usleep(200_000)
            changes += 1
            _ = try ctl(deckd, [changes % 2 == 0 ? "play" : "pause"])
        }
        #expect(!pipeline.isRunning, "deckctl went on after \(changes) changes")
        #expect(try String(contentsOfFile: errors, encoding: .utf8) == "deckctl: cannot write the output: Broken pipe\n")
        #expect(deckd.stop() == 0)
    }

    /// `deckctl events | head -n 1` ends once head has its line, as `tail -f | head -n 1` does,
    /// though nothing changes after: a follower notices its reader going, not only its next write.
    /// Killed by SIGPIPE as the write would have been, or, with SIGPIPE ignored, saying why.
    @Test(arguments: ["", "trap '' PIPE; "])
    func aFollowerEndsWithItsReaderEvenWhenNothingChanges(preamble: String) throws {
        let deckd = try daemon()
        let dir = TemporaryDirectory()
        for (index, command) in ["now-playing --follow", "events"].enumerated() {
            let errors = "\(dir.path)/errors\(index).txt", line = "\(dir.path)/line\(index).txt"
            let pipeline = try ChildProgram("/bin/sh", ["-c", preamble + "{ \"$0\" --socket \"$1\" \(command) 2> \"$2\"; echo $? > \"$2.status\"; } | head -n 1 > \"$3\"",
                                                        deckctl, deckd.socket, errors, line])
            // Changes until head has its line (events prints none before one), and none after it.
            var level = 40
            let asked = Date().addingTimeInterval(10)
            while (try? String(contentsOfFile: line, encoding: .utf8))?.isEmpty ?? true, pipeline.isRunning, Date() < asked {
                level = 79 - level
                _ = try ctl(deckd, ["volume", "media", "\(level)"])
                usleep(200_000)
            }
            let deadline = Date().addingTimeInterval(5)
            while pipeline.isRunning && Date() < deadline { usleep(20_000) }
            #expect(!pipeline.isRunning, "\(command) went on after its reader ended")
            pipeline.terminate()
            pipeline.waitUntilExit()
            let status = try String(contentsOfFile: errors + ".status", encoding: .utf8)
            let said = try String(contentsOfFile: errors, encoding: .utf8)
            if preamble.isEmpty {
                #expect(status == "\(128 + SIGPIPE)\n" && said.isEmpty, "\(command): status \(status), said \(said)")
            } else {
                #expect(status == "1\n" && said == "deckctl: cannot write the output: Broken pipe\n", "\(command): status \(status), said \(said)")
            }
        }
        #expect(deckd.stop() == 0)
    }
}
