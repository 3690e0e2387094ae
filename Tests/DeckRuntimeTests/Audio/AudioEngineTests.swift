import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckAudio

@Suite struct AudioEngineTests {
    let dir = TemporaryDirectory()

    @Test func freewheelOutputIsContinuousAndEndsWithTheTrimmedGranule() throws {
        let harness = try StreamingHarness(freewheel: true, seconds: 2.5)
        var packets: [EncodedPacket] = []
        harness.runtime.output.attach(CallbackSink(name: "test") { packets.append($0) })
        try harness.start()
        #expect(harness.runUntilFinished())
        #expect(packets.count == 126)  // 125 frames of audio, then one covering the encoder's 312-sample delay
        #expect(packets.map(\.sampleIndex) == (0..<126).map { Int64($0) * 960 })
        #expect(packets.dropLast().allSatisfy { !$0.isLast && $0.finalGranule == nil })
        #expect(packets.last?.finalGranule == Int64(312 + 120_000))
        #expect(harness.runtime.audio.stats.frames.load(ordering: .relaxed) == 126)
        #expect(harness.runtime.audio.stats.droppedPackets.load(ordering: .relaxed) == 0)
    }

    @Test func afterCloseStreamReturnsRenderIsNeverCalledAgain() throws {
        let harness = try StreamingHarness(freewheel: false)
        let plugin = try harness.load(try Fixture.bundle(in: dir.path))
        try harness.runtime.focus.play(pluginID: plugin.id, item: "sine-440")
        try harness.start()
        harness.run(for: 0.2)
        #expect(harness.runtime.output.closeStream(for: plugin.id))
        let rendered = plugin.streamCounters.renderedFrames.load(ordering: .relaxed)
        #expect(rendered > 3)
        harness.run(for: 0.2)
        #expect(plugin.streamCounters.renderedFrames.load(ordering: .relaxed) == rendered)
    }

    @Test func pacedOutputKeepsRealTime() throws {
        let harness = try StreamingHarness(freewheel: false)
        try harness.start()
        let started = Date()
        harness.run(for: 1)
        let frames = harness.runtime.audio.stats.frames.load(ordering: .relaxed)
        let expected = Date().timeIntervalSince(started) * 50
        #expect(abs(Double(frames) - expected) <= 3)
    }

    @Test func aStalledLoopDropsPacketsCountedAndLoggedOncePerBurst() throws {
        let harness = try StreamingHarness(freewheel: false) { $0.audio.packetBufferMilliseconds = 100 }
        var packets: [EncodedPacket] = []
        harness.runtime.output.attach(CallbackSink(name: "test") { packets.append($0) })
        try harness.start()
        harness.run(for: 0.1)
        usleep(500_000)  // the loop stalls for 25 frames; the ring holds 5
        harness.run(for: 0.1)
        usleep(500_000)
        harness.run(for: 0.1)
        let dropped = harness.runtime.audio.stats.droppedPackets.load(ordering: .relaxed)
        #expect(dropped >= 30)
        let lines = harness.log.all.filter { $0.level == .warning && $0.message.contains("packet(s) dropped") }
        #expect(lines.count == 1)  // one line per burst, saying how many
        #expect(lines.first?.message.contains("within 100 ms (audio.packetBufferMs); listeners hear a gap") == true)
        // The holes are real: sample indexes jump where packets were lost.
        let gaps = zip(packets, packets.dropFirst()).filter { $1.sampleIndex != $0.sampleIndex + Int64($0.samples) }
        #expect(gaps.count == 2)
    }

    @Test func theDefaultRingRidesOutALoopStalledForSeconds() throws {
        let harness = try StreamingHarness(freewheel: false)
        var packets: [EncodedPacket] = []
        harness.runtime.output.attach(CallbackSink(name: "test") { packets.append($0) })
        try harness.start()
        harness.run(for: 0.1)
        sleep(3)  // as a machine loaded with 16 busy processes starves the loop thread
        harness.run(for: 0.1)
        #expect(harness.runtime.audio.stats.droppedPackets.load(ordering: .relaxed) == 0)
        #expect(zip(packets, packets.dropFirst()).allSatisfy { $1.sampleIndex == $0.sampleIndex + Int64($0.samples) })
        #expect(packets.count >= 150)
    }

    @Test(arguments: [7.5, 100.0])
    func frameSizesOutsideOpusAreRefused(milliseconds: Double) {
        #expect(throws: AudioConfigurationError.frameSize(milliseconds)) { try FrameSize(milliseconds: milliseconds) }
    }

    @Test func badEncoderSettingsAreRefusedBeforeAnythingRuns() {
        var configuration = RuntimeConfiguration()
        configuration.audio.encoder.bitrate = 1_000_000
        #expect(throws: RuntimeError.audio(.configuration(.bitrate(1_000_000)))) {
            _ = try Runtime(configuration: configuration, logger: LogCapture().logger)
        }
    }
}
