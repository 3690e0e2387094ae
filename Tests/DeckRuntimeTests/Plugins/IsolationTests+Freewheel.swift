import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime

/// Isolated hosts when the output freewheels (a render to a file): the mix waits for their frames
/// rather than write silence, and takes what they rendered ahead before a stream closes.
extension IsolationTests {
    /// In freewheel a render may wait for its decoder (up to 40 ms, deck/ext/audio.h): the mix
    /// waits for the host's frames (three quarters of the render timeout) instead of counting
    /// each late after `renderDeadlineMs`, so a render to a file has no gaps.
    @Test func inFreewheelTheMixWaitsForAHostWhoseRenderWaitsForItsDecoder() throws {
        let path = dir.path + "/slow.opus"
        let harness = try StreamingHarness(freewheel: true, seconds: 1, sinks: ["file:\(path)"], isolation: .process)
        let radio = try harness.load(try Fixture.app(in: dir.path, "Radio", id: "org.example.radio"))
        try harness.runtime.focus.play(pluginID: radio.id, item: "slow")
        try harness.start()
        #expect(harness.runUntilFinished())
        #expect(radio.lateFrames == 0 && radio.streamCounters.underrunFrames.load(ordering: .relaxed) == 0)
        #expect(harness.shutDown())
        let decoded = try AudioAnalysis.decodeWithFFmpeg(path)
        #expect(AudioAnalysis.longestGapMilliseconds(decoded.left, start: 4_800, end: decoded.frames - 4_800) <= 2)
    }

    /// In freewheel the mix waits for every frame, also after one came late: paced it stops waiting
    /// for a host that missed until it catches up, but a freewheeling mix would race through the
    /// host's stall and fill the file with silence.
    @Test func inFreewheelAHostLateOnceCostsOneFrameNotEveryFrameUntilItCatchesUp() throws {
        let path = dir.path + "/stall-freewheel.opus"
        let harness = try StreamingHarness(freewheel: true, seconds: 2, sinks: ["file:\(path)"], isolation: .process)
        let radio = try harness.load(try Fixture.app(in: dir.path, "Radio", id: "org.example.radio"))
        try harness.runtime.focus.play(pluginID: radio.id, item: "stall")  // its 10th render sleeps 200 ms
        try harness.start()
        #expect(harness.runUntilFinished())
        #expect(radio.lateFrames.map { $0 <= 1 } == true, "late frames: \(radio.lateFrames.map(String.init) ?? "none")")
        #expect(harness.shutDown())
        let decoded = try AudioAnalysis.decodeWithFFmpeg(path)
        #expect(AudioAnalysis.longestGapMilliseconds(decoded.left, start: 4_800, end: decoded.frames - 4_800) <= 30)
    }

    /// A closing stream is drained in freewheel only while the mix pulls it: one faded to silence
    /// (ducked or paused to zero) is not pulled, so waiting for its ring would only hold the loop
    /// for the whole deadline (150 ms).
    @Test func inFreewheelAStreamFadedToSilenceClosesWithoutHoldingTheLoop() throws {
        let harness = try StreamingHarness(freewheel: true, seconds: 600, sinks: ["file:\(dir.path)/faded.opus"], isolation: .process)
        let radio = try harness.load(try Fixture.app(in: dir.path, "Radio", id: "org.example.radio"))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        try harness.start()
        harness.run(for: 0.3)
        harness.runtime.output.rampGain(of: radio.id, to: 0, milliseconds: 5, curve: .linear)
        harness.run(for: 0.3)
        #expect(!harness.runtime.output.isAudible(radio.id))
        let began = Date()
        #expect(harness.runtime.focus.closeStream(instance: radio.instance) == nil)
        let held = Date().timeIntervalSince(began)
        #expect(!harness.runtime.output.hasStream(radio.id))
        #expect(held < 0.1, "the loop was held \(Int(held * 1000)) ms")
        #expect(harness.shutDown())
    }
}
