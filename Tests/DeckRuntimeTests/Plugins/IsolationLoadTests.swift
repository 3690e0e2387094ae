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

    /// A runtime on `loop` playing a sine in `mode`, recording to a file.
    private func playing(_ mode: IsolationPolicy.Mode, loop: EventLoop) throws -> (StreamingHarness, PluginInstance, path: String) {
        let path = dir.path + "/\(mode.rawValue).opus"
        let harness = try StreamingHarness(freewheel: false, sinks: ["file:\(path)"], isolation: mode, loop: loop)
        let plugin = try harness.load(try Fixture.app(in: dir.path, "Radio-\(mode.rawValue)", id: "org.example.radio"))
        try harness.start()
        try harness.runtime.focus.play(pluginID: plugin.id, item: "sine-440")
        return (harness, plugin, path)
    }

    /// The underruns counted for the plugin and the late frames, read while it plays.
    private func counts(_ run: (harness: StreamingHarness, plugin: PluginInstance, path: String)) -> (underruns: Int, late: Int) {
        (run.plugin.streamCounters.underrunFrames.load(ordering: .relaxed), run.harness.runtime.audio.stats.lateEvents.load(ordering: .relaxed))
    }

    /// The longest silence in the file, read once its runtime is shut down and the loop drained.
    private func gap(_ path: String) throws -> Int {
        let decoded = try AudioAnalysis.decodeWithFFmpeg(path)
        return AudioAnalysis.longestGapMilliseconds(decoded.left, start: 9_600, end: decoded.frames - 4_800)
    }

    /// Both modes play at once, side by side on one loop, for 8 s in real time under `MixedLoad`.
    @Test func anIsolatedStreamUnderHeavyLoadLosesNoMoreAudioThanAnInlineOne() throws {
        let loop = try EventLoop()
        let inlineRun = try playing(.inline, loop: loop), isolatedRun = try playing(.process, loop: loop)
        let load = try MixedLoad()
        inlineRun.0.run(for: 8)  // turns the loop both runtimes share
        load.stop()
        let inline = counts(inlineRun), isolated = counts(isolatedRun)
        inlineRun.0.runtime.shutdown()
        #expect(isolatedRun.0.shutDown(), "the files' writers did not finish")  // drains the loop both share
        let inlineGap = try gap(inlineRun.path), isolatedGap = try gap(isolatedRun.path)
        #expect(inline.underruns == 0 && inlineGap == 0, "inline: \(inline), gap \(inlineGap) ms")
        #expect(isolated.underruns == 0 && isolatedGap == 0, "isolated: \(isolated), gap \(isolatedGap) ms")
    }
}
