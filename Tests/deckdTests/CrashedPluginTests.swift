import DeckBase
import DeckTestSupport
import Foundation
import Testing

/// deckd with plugins in host processes: a plugin that crashes or hangs is reported, restarted and
/// never takes deckd down, and SIGTERM still ends everything in time with end of stream.
@Suite struct CrashedPluginTests {
    @Test func aSegfaultingPluginIsReportedAndRestartedAndDeckdPlaysOn() throws {
        let dir = TemporaryDirectory()
        let output = dir.path + "/out.opus"
        let deckd = try DeckdProcess.withFixture(in: dir.path, "Crash", id: "org.example.crash", isolation: .process)
        #expect(deckd.waitForLog("deckd: ready"))
        let before = try deckd.deckctl(["apps"]).output
        #expect(before.contains("org.example.crash  1.0.0  active  c  [audio]  process "))
        #expect(try deckd.deckctl(["launch", "org.example.crash", "segv"]).status == 0)
        #expect(deckd.waitForLog("org.example.crash crashed: its process"))
        #expect(deckd.log.contains("was killed by signal 11 (SIGSEGV); restarting it in 250 ms"))
        #expect(deckd.waitForLog("org.example.crash restarted"))
        let after = try deckd.deckctl(["apps"]).output
        #expect(after.contains("org.example.crash  1.0.0  active") && after != before)  // a new process
        #expect(try deckd.deckctl(["status"]).status == 0)
        let started = Date()
        #expect(deckd.stop(signal: SIGTERM, seconds: 5) == 0)
        #expect(Date().timeIntervalSince(started) < 2)
        let info = try AudioAnalysis.opusinfo(output)
        #expect(info.status == 0 && info.warnings.isEmpty, "\(info.output)")
        #expect(info.output.contains("Logical stream 1 ended"))
    }

    /// What isolation is for: the same crash inline takes deckd, and every app's audio, down.
    @Test func inlineTheSameCrashTakesDeckdDown() throws {
        let dir = TemporaryDirectory()
        let deckd = try DeckdProcess.withFixture(in: dir.path, "Crash", id: "org.example.crash", isolation: .inline,
                                                 environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(deckd.waitForLog("deckd: ready"))
        _ = try deckd.deckctl(["launch", "org.example.crash", "segv"])
        #expect(waitUntil(seconds: 10) { !deckd.process.isRunning })
        #expect(deckd.process.terminationReason == .uncaughtSignal && deckd.process.terminationStatus == SIGSEGV)
    }

    @Test func sigtermEndsInTimeWithAnIsolatedActivateThatNeverReturns() throws {
        let dir = TemporaryDirectory()
        let deckd = try DeckdProcess.withFixture(in: dir.path, "Stuck", id: "org.example.stuck", defines: ["FIXTURE_HANG_ACTIVATE"],
                                                 isolation: .process)
        #expect(deckd.waitForLog("org.example.stuck crashed: its process"))
        #expect(deckd.log.contains("was killed: it did not answer activate within 1000 ms"))
        #expect(deckd.waitForLog("deckd: ready"))
        let started = Date()
        #expect(deckd.stop(signal: SIGTERM, seconds: 10) == 0)
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(!deckd.log.contains("gave up on hung plugin"))
    }

    /// Hosts that cannot answer when deckd is told to stop (here, stopped with SIGSTOP) hold the
    /// shutdown no longer than the plugins' share of its grace: the file is finished first, each
    /// host is waited for only while that share lasts, and deckd exits 0 with the file whole.
    @Test func stoppedHostsAtSigtermAreEndedWithinTheGraceAndTheFileIsWhole() throws {
        let dir = TemporaryDirectory()
        let output = dir.path + "/out.opus"
        let deckd = try DeckdProcess.firstParty(["--sink", "file:" + output, "--state", "none", "--play", "org.deck.tone", "--isolation", "process"])
        try deckd.waitForFrames(25)
        let apps = try deckd.apps()
        let hosts = apps.compactMap { $0["pid"]?.intValue }
        #expect(hosts.count == 2, "\(apps)")
        hosts.forEach { kill(pid_t($0), SIGSTOP) }
        let started = Date()
        #expect(deckd.stop(signal: SIGTERM, seconds: 10) == 0, "\(deckd.log)")
        #expect(Date().timeIntervalSince(started) < 2, "the guard's grace is 2 s")
        let info = try AudioAnalysis.opusinfo(output)
        #expect(info.status == 0 && info.warnings.isEmpty && info.output.contains("Logical stream 1 ended"), "\(info.output)")
        hosts.forEach { kill(pid_t($0), SIGKILL) }  // none should be left; a failure above must not leave them stopped
    }
}
