@testable import DeckBase
import Glibc
import Testing

/// The journal's native protocol as `JournalWriter` writes it (systemd.io/JOURNAL_NATIVE_PROTOCOL).
@Suite struct JournalWriterTests {
    @Test func aRecordIsFieldLinesThenALengthPrefixedMessage() throws {
        let writer = try #require(JournalWriter(socketPath: "/nonexistent/socket", identifier: "deckd"))
        let record = LogRecord(level: .warning, source: "plugins", message: "two\nlines", plugin: "org.x.y", event: .pluginHung)
        let bytes = writer.datagram(record)
        let head = "PRIORITY=4\nSYSLOG_IDENTIFIER=deckd\nDECK_SOURCE=plugins\nDECK_PLUGIN=org.x.y\n"
            + "MESSAGE_ID=79540bb5b5ba4e9da0b38918937a94bf\nMESSAGE\n"
        #expect(Array(bytes.prefix(head.utf8.count)) == Array(head.utf8))
        let length = bytes[head.utf8.count..<head.utf8.count + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        #expect(length == 9)
        #expect(Array(bytes.suffix(10)) == Array("two\nlines\n".utf8))
    }

    @Test func noPluginNoEventNoFields() throws {
        let writer = try #require(JournalWriter(socketPath: "/nonexistent/socket", identifier: "deckd"))
        let text = String(decoding: writer.datagram(LogRecord(level: .debug, source: "state", message: "m")), as: UTF8.self)
        #expect(text.hasPrefix("PRIORITY=7\nSYSLOG_IDENTIFIER=deckd\nDECK_SOURCE=state\nMESSAGE\n"))
        #expect(!text.contains("DECK_PLUGIN") && !text.contains("MESSAGE_ID"))
    }

    @Test func aJournalThatIsNotThereRefusesTheRecord() throws {
        let writer = try #require(JournalWriter(socketPath: "/nonexistent/socket", identifier: "deckd"))
        #expect(!writer.write(LogRecord(level: .info, source: "a", message: "b")))
        #expect(JournalWriter(socketPath: String(repeating: "x", count: 200), identifier: "deckd") == nil)
    }

    @Test func messageIDsAreDistinct128BitIDs() {
        let ids = LogEvent.allCases.map(\.messageID)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy { $0.isHexDigit && !$0.isUppercase } })
    }

    @Test func journalStreamMustNameStderrItself() {
        var status = stat()
        fstat(2, &status)
        let saved = getenv("JOURNAL_STREAM").map { String(cString: $0) }
        defer { if let saved { setenv("JOURNAL_STREAM", saved, 1) } else { unsetenv("JOURNAL_STREAM") } }
        setenv("JOURNAL_STREAM", "\(status.st_dev):\(status.st_ino)", 1)
        #expect(JournalWriter.standardErrorIsJournal)
        setenv("JOURNAL_STREAM", "\(status.st_dev):\(status.st_ino &+ 1)", 1)
        #expect(!JournalWriter.standardErrorIsJournal)
        setenv("JOURNAL_STREAM", "garbage", 1)
        #expect(!JournalWriter.standardErrorIsJournal)
    }
}
