import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckSession

/// One drive, start to end, judged on the rendered file: music, a navigation prompt, a call, the
/// call ends, the music stops, the output goes idle; and every `session.changed` on the way.
@Suite struct SessionScenarioTests {
    let dir = TemporaryDirectory()

    @Test func musicPromptCallResumeStopAndIdle() throws {
        let path = dir.path + "/drive.opus"
        let harness = try StreamingHarness(freewheel: false, sinks: ["file:\(path)"]) {
            $0.session.alwaysActive = false
            $0.session.idleTimeoutMilliseconds = 1_000
        }
        var notes: [JSONValue] = []
        let listener = RPCConnection { line in notes.append((try? JSONValue.parse(line))?["params"] ?? .null) }
        listener.topics = Set(Runtime.eventTopics)  // all of them: the numbering is one for the whole runtime
        harness.runtime.events.add(listener)
        let radio = try harness.load(try Fixture.bundle(in: dir.path))
        try harness.start()

        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        harness.run(for: 1.0)                                                        // 0.0–1.0 s music
        let prompt = FocusRequest(owner: .integrator("maps"), context: .navigation, type: .gainTransientMayDuck)
        #expect(harness.runtime.focus.requestFocus(prompt) == .granted)
        harness.run(for: 1.0)                                                        // 1.0–2.0 s ducked
        harness.runtime.focus.abandonFocus(prompt.owner)
        let call = FocusRequest(owner: .integrator("phone"), context: .call, type: .gainTransient)
        #expect(harness.runtime.focus.requestFocus(call) == .granted)
        harness.run(for: 0.2)
        let atPause = radio.streamCounters.renderedFrames.load(ordering: .relaxed)
        harness.run(for: 0.8)                                                        // 2.0–3.0 s paused
        #expect(radio.streamCounters.renderedFrames.load(ordering: .relaxed) == atPause)
        harness.runtime.focus.abandonFocus(call.owner)
        harness.run(for: 1.0)                                                        // 3.0–4.0 s resumed
        radio.stopPlayback()                                                         // closes its stream, abandons its focus
        #expect(turnLoop(harness.runtime.loop, seconds: 5) { !harness.runtime.session.isActive })  // idle after 1 s
        #expect(harness.shutDown(), "the file's writer did not finish")

        // The file: one clean Ogg link, levels as the session said.
        let info = try AudioAnalysis.opusinfo(path)
        #expect(info.warnings.isEmpty, "\(info.warnings)")
        let left = try AudioAnalysis.decodeWithFFmpeg(path).left
        func level(_ from: Double, _ to: Double) -> Double { 20 * log10(AudioAnalysis.rms(left[Int(from * 48_000)..<Int(to * 48_000)])) }
        let music = level(0.3, 0.9), ducked = level(1.6, 1.95), paused = level(2.3, 2.9), resumed = level(3.6, 3.9)
        #expect(abs(ducked - music - (-14)) <= 0.5, "ducked \(ducked - music) dB")
        #expect(paused < -90, "paused at \(paused) dBFS")
        #expect(abs(resumed - music) <= 0.5, "resumed \(resumed - music) dB")
        let end = try #require(left.lastIndex { abs($0) > 1e-3 })
        #expect(try AudioAnalysis.levelAbove(4_000, in: left, start: end - 1_024) < -90, "a click where the music stops")

        // Every change published, numbered without a gap, in the order it happened.
        let seqs = notes.compactMap { $0["seq"]?.intValue }
        #expect(seqs == Array(seqs.first!...(seqs.first! + Int64(seqs.count) - 1)))
        let changes = notes.filter { $0["changes"] != nil }.flatMap { $0["changes"]?.arrayValue ?? [] }.map { "\($0["owner"]!.stringValue!) \($0["change"]!.stringValue!)" }
        #expect(changes == [
            "org.deck.test.fixture granted", "output activated",
            "integrator:maps granted", "org.deck.test.fixture ducked",
            "integrator:maps abandoned", "org.deck.test.fixture unducked",
            "integrator:phone granted", "org.deck.test.fixture paused",
            "integrator:phone abandoned", "org.deck.test.fixture resumed",
            "org.deck.test.fixture abandoned", "output deactivated",
        ], "\(changes)")
    }
}

extension SessionScenarioTests {
    /// A stream whose first sample is already loud (a constant 0.5) would click on a hard start;
    /// the fade-in from its very first sample keeps the start as clean as the stop.
    @Test func aStreamThatStartsLoudStillStartsWithoutAClick() throws {
        let path = dir.path + "/dc.opus"
        let harness = try StreamingHarness(freewheel: false, sinks: ["file:\(path)"])
        let plugin = try harness.load(try Fixture.bundle(in: dir.path))
        try harness.start()  // the output runs (always active) before the stream starts
        harness.run(for: 0.5)
        try harness.runtime.focus.play(pluginID: plugin.id, item: "dc")
        harness.run(for: 0.5)
        #expect(harness.shutDown(), "the file's writer did not finish")
        let left = try AudioAnalysis.decodeWithFFmpeg(path).left
        let start = try #require(left.firstIndex { abs($0) > 1e-3 })
        #expect(start > 12_000)  // after the half second of silence
        let atStart = try AudioAnalysis.levelAbove(4_000, in: left, start: start - 1_024)
        #expect(atStart < -90, "energy above 4 kHz where a loud stream starts: \(atStart) dBFS")
    }
}
