import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckPlugins
import DeckTestSupport

/// What a plugin author meets through `deck_host_t`: messages that name the problem, and a log
/// the plugin can neither forge nor flood.
@Suite struct PluginHostTests {
    let dir = TemporaryDirectory()

    @Test func aPluginCannotForgeFloodOrOverrunTheLog() throws {
        let log = LogCapture(level: .info)
        let runtime = try makeRuntime(log: log)
        let plugin = try #require(runtime.plugins.load(try Fixture.bundle(in: dir.path, defines: ["FIXTURE_HOSTILE_LOG"])))
        runtime.plugins.activateAll()
        let lines = log.messages(from: plugin.id)
        let forged = try #require(lines.first { $0.hasPrefix("innocent") })
        #expect(forged == #"innocent\n2026-01-01T00:00:00.000Z error deckd: forged\r\x1b[2Jcleared"#)
        #expect(lines.allSatisfy { !$0.contains("\n") && !$0.contains("\r") && !$0.contains("\u{1B}") })
        let long = try #require(lines.first { $0.hasPrefix("xxxx") })
        #expect(long == String(repeating: "x", count: 1_024) + "… (3976 more bytes cut)")
        // 1000 lines at once: a burst gets through, the rest is suppressed.
        let flood = lines.filter { $0 == "flood" }.count
        #expect(flood >= 90 && flood <= 110)
        // Then 100 in a second: about 20 pass, each saying how many were left out before it, and
        // the flood is announced once, in either isolation mode (a host process's lines are not
        // held to the budget twice).
        #expect(turnLoop(runtime.loop) { log.messages(from: plugin.id).contains { $0.hasSuffix("paced end") } })
        let paced = log.messages(from: plugin.id).filter { $0.hasSuffix("paced") }
        #expect(paced.count >= 12 && paced.count <= 30, "\(paced)")
        #expect(paced.dropFirst().allSatisfy { $0.wholeMatch(of: /\([0-9]+ lines? suppressed\) paced/) != nil }, "\(paced)")
        #expect(log.all.filter { $0.level == .warning && $0.source == plugin.id && $0.message.contains("logging faster than 20 lines a second") }.count == 1,
                "\(log.messages(from: plugin.id).suffix(20))")
        runtime.shutdown()
    }

    @Test func lastErrorNamesTheProblemAndIsClearedByTheNextSuccess() throws {
        let harness = try StreamingHarness(freewheel: true, seconds: 0.1)
        let plugin = try harness.load(try Fixture.bundle(in: dir.path))
        try harness.runtime.focus.play(pluginID: plugin.id, item: "probe")
        let lines = harness.log.messages(from: plugin.id)
        #expect(lines.contains("probe context: -1 request_focus: unknown context \"warp\"; known: "
                               + AudioContext.allCases.map(\.rawValue).joined(separator: ", ")))
        #expect(lines.contains("probe type: -1 request_focus: unknown focus type 9 (DECK_FOCUS_GAIN 1 to DECK_FOCUS_GAIN_TRANSIENT_EXCLUSIVE 4)"))
        #expect(lines.contains("probe granted: []"))
        #expect(harness.runtime.output.hasStream(plugin.id))
    }

    /// `is_freewheeling` (ABI 1.5) answers what the output does, in a host process as in the runtime.
    @Test(arguments: [true, false])
    func aPluginIsToldWhetherTheOutputFreewheels(freewheel: Bool) throws {
        let harness = try StreamingHarness(freewheel: freewheel, seconds: 0.1)
        let plugin = try harness.load(try Fixture.bundle(in: dir.path))
        try harness.runtime.focus.play(pluginID: plugin.id, item: "probe")
        let lines = harness.log.messages(from: plugin.id)
        #expect(lines.contains("probe freewheeling: \(freewheel ? "yes" : "no")"), "\(lines)")
    }

    @Test func aStreamOpenedDuringInitIsRefusedNamingTheState() throws {
        let log = LogCapture()
        let runtime = try makeRuntime(log: log)
        let plugin = try #require(runtime.plugins.load(try Fixture.bundle(in: dir.path, defines: ["FIXTURE_STREAM_IN_INIT"])))
        #expect(log.messages(from: plugin.id).contains(
            "init open_stream: -4 open_stream: the plugin is still loading (in init); call it once the plugin is active"))
        runtime.shutdown()
    }

    @Test(arguments: [("nan", "rendered NaN or infinite samples; those frames were silenced (counted in apps.list as invalidFrames)"),
                      ("loud", "rendered samples beyond full scale (±1.0); the mix limits them (counted in apps.list as clippedFrames)")])
    func badSamplesAreCountedPerStreamAndTheFirstIsLoggedNamingThePlugin(item: String, warning: String) throws {
        let harness = try StreamingHarness(freewheel: false)
        let plugin = try harness.load(try Fixture.bundle(in: dir.path))
        try harness.runtime.focus.play(pluginID: plugin.id, item: item)
        try harness.start()
        harness.run(for: 2.2)  // the stream watchdog looks every second
        let counters = plugin.streamCounters
        let counted = item == "nan" ? counters.invalidFrames.load(ordering: .relaxed) : counters.clippedFrames.load(ordering: .relaxed)
        #expect(counted > 20)
        let described = AppsMethods.describe(plugin, zones: harness.runtime.zones)
        #expect(described[item == "nan" ? "invalidFrames" : "clippedFrames"]?.intValue ?? 0 >= Int64(counted))
        // Each bad frame was rendered in full: the count they are judged against.
        #expect(described["renderedFrames"]?.intValue ?? 0 >= Int64(counted))
        #expect(harness.log.all.filter { $0.level == .warning && $0.message == "\(plugin.id) \(warning)" }.count == 1)
    }

    @Test func aPluginsLogBudgetAllowsABurstThenARate() {
        var budget = PluginLogBudget()
        let burst = (0..<150).map { _ in budget.admit(now: 1_000) }
        #expect(burst.prefix(100).allSatisfy { $0 == .log(suppressed: 0) })
        #expect(burst[100] == .suppress(first: true))
        #expect(burst[101] == .suppress(first: false))
        // A second later 20 more lines may pass; the first says how many were dropped.
        #expect(budget.admit(now: 2_000) == .log(suppressed: 50))
        // The flood goes on: announced once, not at each line let through.
        (0..<19).forEach { _ in _ = budget.admit(now: 2_000) }
        #expect(budget.admit(now: 2_000) == .suppress(first: false))
        // Once the bucket has filled again, a new flood is announced again.
        #expect(budget.admit(now: 8_000) == .log(suppressed: 1))
        (0..<99).forEach { _ in _ = budget.admit(now: 8_000) }
        #expect(budget.admit(now: 8_000) == .suppress(first: true))
    }

    @Test func linesAHostProcessForwardsMayComeTwiceAsFast() {
        var budget = PluginLogBudget(scale: 2)
        #expect((0..<200).allSatisfy { _ in budget.admit(now: 1_000) == .log(suppressed: 0) })
        #expect(budget.admit(now: 1_000) == .suppress(first: true))
        #expect((0..<40).allSatisfy { _ in if case .log = budget.admit(now: 2_001) { true } else { false } })
    }
}
