import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckAudio

/// Closing a stream does not wait for its fade, so a burst of switches (close, open, close, …)
/// between two audio frames can outrun the mixer's 32 slots: the engine then waits for the audio
/// thread to end the closed ones rather than refusing the open.
@Suite struct StreamSwitchTests {
    let dir = TemporaryDirectory()

    @Test func a100SwitchesBetweenTwoFramesAllOpen() throws {
        let harness = try StreamingHarness(freewheel: false, sinks: ["file:\(dir.path)/switch.opus"], isolation: .inline)
        let plugin = try harness.load(try Fixture.app(in: dir.path, "Radio", id: "org.example.radio"))
        try harness.start()
        harness.run(for: 0.1)
        let source = try #require(plugin.renderSource)
        var refused = 0
        for _ in 0..<100 {
            do throws(AudioEngineError) {
                try harness.runtime.output.openStream(for: "switch", source: source, gain: 1, counters: plugin.streamCounters)
            } catch {
                refused += 1
            }
            harness.runtime.output.closeStream(for: "switch")
        }
        #expect(refused == 0)
        harness.run(for: 0.1)
        #expect(harness.runtime.info["output"]?["running"] == true)
    }
}
