import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

/// deckd logging to systemd's journal: a real `systemd-journald`, started in a namespace of the
/// test's own (so it needs no running journal and never writes to the machine's), receives
/// deckd's records, and `journalctl` filters them by Deck's fields.
@Suite struct JournalTests {
    /// `systemd-journald NAMESPACE`: its native socket, and journalctl's reading of what it stored.
    final class Journald {
        let namespace = "decktest\(getpid())x\(UInt32.random(in: 0...UInt32.max))"
        private let process: ChildProgram

        var socket: String { "/run/systemd/journal.\(namespace)/socket" }

        init() throws {
            process = try ChildProgram("/lib/systemd/systemd-journald", [namespace])
            guard waitUntil(seconds: 10, { FileManager.default.fileExists(atPath: socket) }) else {
                throw CommandFailure(description: "systemd-journald \(namespace) made no socket")
            }
        }

        /// The stored entries matching every `FIELD=value` in `matches`, each as its fields.
        func entries(_ matches: [String]) throws -> [[String: String]] {
            let result = try runProgram("/usr/bin/journalctl", ["--namespace=\(namespace)", "-o", "json", "--no-pager"] + matches)
            return result.output.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }.map { $0.compactMapValues { $0 as? String } }
        }

        /// Waits until some entry matches, and `message` when given (journald stores a datagram soon,
        /// but not at once).
        func waitFor(_ matches: [String], message: @escaping (String) -> Bool = { _ in true }, seconds: Double = 10) -> [String: String]? {
            var found: [String: String]?
            _ = waitUntil(seconds: seconds) {
                found = (try? entries(matches))?.first { message($0["MESSAGE"] ?? "") }
                return found != nil
            }
            return found
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
            let machine = (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            try? FileManager.default.removeItem(atPath: "/var/log/journal/\(machine).\(namespace)")
            try? FileManager.default.removeItem(atPath: "/run/log/journal/\(machine).\(namespace)")
            try? FileManager.default.removeItem(atPath: "/run/systemd/journal.\(namespace)")
        }
    }

    @Test func pluginLinesCrashesAndASetAsideStateFileAreJournalRecordsWithDeckFields() throws {
        let journal = try Journald()
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/plugins", withIntermediateDirectories: true)
        try Fixture.app(in: dir.path + "/plugins", "Crash", id: "org.example.crash")
        try "{\"version\": 1, \"volumes\": {\"media\": 1e400}}".write(toFile: dir.path + "/state.json", atomically: true, encoding: .utf8)
        let deckd = try DeckdProcess(["--plugins", dir.path + "/plugins", "--state", dir.path + "/state.json",
                                      "--isolation", "process", "--log-target", "journal", "--journal-socket", journal.socket])
        let ready = journal.waitFor(["DECK_SOURCE=deckd"]) { $0.hasPrefix("ready: 1 plugin(s) loaded") }
        #expect(ready?["SYSLOG_IDENTIFIER"] == "deckd" && ready?["PRIORITY"] == "6", "\(String(describing: ready))")
        #expect(deckd.log.isEmpty, "records go to the journal, not stderr: \(deckd.log)")

        let aside = journal.waitFor(["MESSAGE_ID=\(LogEvent.stateSetAside.messageID)"])
        #expect(aside?["DECK_SOURCE"] == "state" && aside?["PRIORITY"] == "4")
        #expect(aside?["MESSAGE"]?.contains("starting without saved state") == true)

        // The plugin's own line: its id is both the source and the plugin.
        _ = try deckd.deckctl(["launch", "org.example.crash", "no-such-item"])
        let line = journal.waitFor(["DECK_PLUGIN=org.example.crash", "MESSAGE=unknown item"])
        #expect(line?["DECK_SOURCE"] == "org.example.crash" && line?["PRIORITY"] == "3")

        #expect(try deckd.deckctl(["launch", "org.example.crash", "segv"]).status == 0)
        let crashed = journal.waitFor(["MESSAGE_ID=\(LogEvent.pluginCrashed.messageID)", "DECK_PLUGIN=org.example.crash"])
        #expect(crashed?["DECK_SOURCE"] == "plugins" && crashed?["PRIORITY"] == "3")
        #expect(crashed?["MESSAGE"]?.contains("killed by signal 11 (SIGSEGV)") == true)
        // Filtering by plugin finds its lines and nothing about other subjects.
        let about = try journal.entries(["DECK_PLUGIN=org.example.crash"])
        #expect(about.contains { $0["MESSAGE"]?.hasPrefix("loaded org.example.crash") == true })
        #expect(!about.contains { $0["DECK_SOURCE"] == "state" || $0["DECK_SOURCE"] == "deckd" })
        #expect(deckd.stop() == 0)
    }

    /// Without a journal to take them, records are text lines on stderr: nothing is lost.
    @Test func aJournalThatIsNotThereLeavesTheLinesOnStderr() throws {
        let dir = TemporaryDirectory()
        let deckd = try DeckdProcess(["--plugins", Paths.corePlugins, "--state", "none",
                                      "--log-target", "journal", "--journal-socket", dir.path + "/no-journal"])
        #expect(deckd.waitForLog(" info deckd: ready: "), "\(deckd.log)")
        let told = "warning log: the journal at \(dir.path)/no-journal does not take records (No such file or directory): "
            + "they go to standard error while it does not"
        #expect(deckd.log.components(separatedBy: told).count == 2, "said once, first: \(deckd.log)")
        #expect(deckd.log.split(separator: "\n").first?.hasSuffix(told) == true, "\(deckd.log)")
        #expect(deckd.stop() == 0)
    }

    @Test func autoUsesTheJournalOnlyWhenStderrIsTheJournalStream() throws {
        let journal = try Journald()
        let dir = TemporaryDirectory()
        let deckd = try DeckdProcess(["--plugins", Paths.corePlugins, "--state", "none", "--journal-socket", journal.socket],
                                     environment: ["JOURNAL_STREAM": "1:1"])
        #expect(deckd.waitForLog("deckd: ready"), "a JOURNAL_STREAM that is not stderr's: text lines")
        #expect(deckd.stop() == 0)
        // stderr as systemd would connect it: JOURNAL_STREAM names its device and inode.
        let stderrFile = dir.path + "/stderr"
        _ = FileManager.default.createFile(atPath: stderrFile, contents: nil)
        var status = stat()
        stat(stderrFile, &status)
        let shell = "exec \"$0\" \"$@\" 2>>\(stderrFile)"
        let journaled = try DeckdProcess(["--plugins", Paths.corePlugins, "--state", "none", "--journal-socket", journal.socket],
                                         launcher: ["/bin/sh", "-c", shell],
                                         environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"])
        let ready = journal.waitFor(["DECK_SOURCE=deckd", "_PID=\(journaled.process.processIdentifier)"]) { $0.hasPrefix("ready: ") }
        #expect(ready != nil)
        #expect(journaled.stop() == 0)
        #expect(try String(contentsOfFile: stderrFile, encoding: .utf8).isEmpty)
    }
}
