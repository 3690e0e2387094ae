import DeckTestSupport
import Foundation
import Testing
@testable import DeckBase

/// The runtime's log: levels filter, lines are whole, and repeated events make one line per burst.
@Suite struct LoggerTests {
    @Test func eachLevelIncludesTheOnesAboveIt() {
        let capture = LogCapture(level: .warning)
        capture.logger.error("a", "e")
        capture.logger.warning("a", "w")
        capture.logger.info("a", "i")
        capture.logger.debug("a", "d")
        #expect(capture.all.map(\.message) == ["e", "w"])
        capture.logger.level = .debug
        capture.logger.debug("a", "d")
        #expect(capture.all.last == LogRecord(level: .debug, source: "a", message: "d"))
    }

    @Test func messagesBelowTheLevelAreNeverBuilt() {
        let capture = LogCapture(level: .error)
        var built = false
        capture.logger.info("a", { built = true; return "expensive" }())
        #expect(!built)
    }

    @Test func everyMessageIsOneLineOfBoundedLength() {
        let capture = LogCapture(level: .info)
        capture.logger.warning("sinks", "invalid sink bad\n2026-01-01T00:00:00.000Z error deckd: forged")
        capture.logger.info("apps", String(repeating: "x", count: 20_000))
        #expect(capture.all.map(\.message) == [#"invalid sink bad\n2026-01-01T00:00:00.000Z error deckd: forged"#,
                                               String(repeating: "x", count: 4_096) + "… (15904 more bytes cut)"])
    }

    @Test(arguments: [("error", LogLevel.error), ("WARN", .warning), ("warning", .warning), ("Info", .info), ("debug", .debug)])
    func levelNamesAreReadWithoutRegardToCase(name: String, level: LogLevel) {
        #expect(LogLevel(name: name) == level)
    }

    @Test func anUnknownLevelNameIsNil() { #expect(LogLevel(name: "loud") == nil) }

    @Test func standardErrorLinesCarryAnISOTimeTheLevelAndTheSource() throws {
        let dir = TemporaryDirectory()
        let daemon = try DeckdProcess(["--plugins", dir.path])
        #expect(daemon.waitForLog("ready"))
        #expect(daemon.stop() == 0)
        let first = try #require(daemon.log.split(separator: "\n").first.map(String.init))
        #expect(first.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info control: JSON-RPC on "#, options: .regularExpression) != nil)
    }

    @Test func aThrottleLogsTheFirstOfABurstAndCountsTheRest() {
        var throttle = LogThrottle(windowMilliseconds: 1_000)
        #expect(throttle.admit(now: 5_000) == (true, 0))
        #expect(throttle.admit(now: 5_100) == (false, 0))
        #expect(throttle.admit(now: 5_999) == (false, 0))
        #expect(throttle.admit(now: 6_000) == (true, 2))  // the next line says two were held back
        #expect(throttle.admit(now: 7_500) == (true, 0))
        #expect(LogThrottle.suffix(2) == " (2 more since the last report)")
        #expect(LogThrottle.suffix(0) == "")
    }
}
