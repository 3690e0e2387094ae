import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime

/// Isolation costs no audio on a busy machine: under heavy mixed load on every core, a stream
/// rendered in a host process has as many underruns as one rendered inline — none. `make test`
/// runs it alone, after both passes (it runs both modes itself, and its load would slow the
/// timing checks of suites running beside it).
@Suite(.serialized) struct IsolationLoadTests {
    let dir = TemporaryDirectory()

    /// Plays a sine for `seconds` in real time under `MixedLoad`; the underruns counted for the
    /// plugin and the longest silence in what the file sink wrote.
    private func play(_ mode: IsolationPolicy.Mode, seconds: Double) throws -> (underruns: Int, gap: Int, late: Int) {
        let path = dir.path + "/\(mode.rawValue).opus"
        let harness = try StreamingHarness(freewheel: false, sinks: ["file:\(path)"], isolation: mode)
        let plugin = try harness.load(try Fixture.app(in: dir.path, "Radio-\(mode.rawValue)", id: "org.example.radio"))
        try harness.start()
        try harness.runtime.focus.play(pluginID: plugin.id, item: "sine-440")
        let load = try MixedLoad()
        harness.run(for: seconds)
        load.stop()
        let underruns = plugin.streamCounters.underrunFrames.load(ordering: .relaxed)
        let late = harness.runtime.audio.stats.lateEvents.load(ordering: .relaxed)
        harness.runtime.shutdown()
        let decoded = try AudioAnalysis.decodeWithFFmpeg(path)
        return (underruns, AudioAnalysis.longestGapMilliseconds(decoded.left, start: 9_600, end: decoded.frames - 4_800), late)
    }

    @Test func anIsolatedStreamUnderHeavyLoadLosesNoMoreAudioThanAnInlineOne() throws {
        let inline = try play(.inline, seconds: 8)
        let isolated = try play(.process, seconds: 8)
        #expect(inline.underruns == 0 && inline.gap == 0, "inline: \(inline)")
        #expect(isolated.underruns == 0 && isolated.gap == 0, "isolated: \(isolated)")
    }
}
