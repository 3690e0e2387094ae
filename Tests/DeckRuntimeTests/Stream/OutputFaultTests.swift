import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckStream

/// Under-delivering and misbehaving plugins, and sinks that fail: the output stays continuous and
/// the counters say what happened.
@Suite struct OutputFaultTests {
    let dir = TemporaryDirectory()

    /// Renders `seconds` of fixture item `item` to a file and a callback sink.
    func render(_ item: String, seconds: Double = 1, entitlements: [String] = ["audio"],
                extraSinks: [String] = []) throws -> (harness: StreamingHarness, plugin: PluginInstance, packets: [EncodedPacket], file: String) {
        let file = dir.path + "/\(item).opus"
        let harness = try StreamingHarness(freewheel: true, seconds: seconds, sinks: ["file:\(file)"] + extraSinks)
        let plugin = try harness.load(try Fixture.bundle(in: dir.path, name: item, manifest: ["entitlements": entitlements]))
        var packets: [EncodedPacket] = []
        harness.runtime.output.attach(CallbackSink(name: "test") { packets.append($0) })
        try harness.runtime.focus.play(pluginID: plugin.id, item: item)
        try harness.start()
        #expect(harness.runUntilFinished())
        return (harness, plugin, packets, file)
    }

    func expectContinuous(_ packets: [EncodedPacket], seconds: Double) {
        #expect(packets.map(\.sampleIndex) == (0..<Int64(packets.count)).map { $0 * 960 })
        #expect(packets.last?.isLast == true)
        #expect(packets.last?.finalGranule == Int64(312 + Int(seconds * 48_000)))
    }

    @Test func anUnderrunningPluginIsPaddedWithSilenceAndCounted() throws {
        let (_, plugin, packets, file) = try render("underrun")
        expectContinuous(packets, seconds: 1)
        #expect(plugin.streamCounters.underrunFrames.load(ordering: .relaxed) >= 49)
        #expect(plugin.streamCounters.renderedFrames.load(ordering: .relaxed) == 0)
        #expect(try AudioAnalysis.opusinfo(file).warnings.isEmpty)
        #expect(try AudioAnalysis.decodeWithOpusdec(file) == 48_000)
    }

    @Test func framesWithNaNAreSilencedAndCounted() throws {
        let (_, plugin, packets, file) = try render("nan")
        expectContinuous(packets, seconds: 1)
        // Every other frame the plugin rendered had a NaN (the output may start a frame before its stream).
        let rendered = plugin.streamCounters.renderedFrames.load(ordering: .relaxed)
        #expect(rendered >= 48)
        #expect(plugin.streamCounters.invalidFrames.load(ordering: .relaxed) == rendered / 2)
        let decoded = try AudioAnalysis.decodeWithFFmpeg(file)
        #expect(decoded.left.allSatisfy { $0.isFinite })
        #expect(decoded.frames == 48_000)
    }

    @Test func samplesOverFullScaleAreLimitedNotWrapped() throws {
        let (harness, _, _, file) = try render("loud")
        #expect(harness.runtime.audio.stats.limitedSamples.load(ordering: .relaxed) > 48_000)
        let decoded = try AudioAnalysis.decodeWithFFmpeg(file)
        // The plugin writes ±4.0; limited to ±1.0, only the codec's overshoot on a square wave remains.
        let peak = decoded.left.map { abs($0) }.max() ?? 0
        #expect(peak > 0.9 && peak < 1.5, "peak \(peak)")
        #expect(AudioAnalysis.rms(decoded.left[4800..<40_000]) > 0.8)
    }

    @Test func aPluginWithoutTheAudioEntitlementCannotPlayMusic() throws {
        let harness = try StreamingHarness(freewheel: true, seconds: 0.1)
        let plugin = try harness.load(try Fixture.bundle(in: dir.path, manifest: ["entitlements": ["maps"]]))
        #expect(throws: PluginCallError(status: .notEntitled, message: "org.deck.test.fixture refused to play sine-440: "
                                        + "request_focus: org.deck.test.fixture may not request music: that needs the audio entitlement (it has: maps)")) {
            try harness.runtime.focus.play(pluginID: plugin.id, item: "sine-440")
        }
        #expect(!harness.runtime.output.hasStream(plugin.id))
    }

    @Test func aFullDiskFailsThatSinkAlone() throws {
        let (harness, _, packets, file) = try render("sine-440", extraSinks: ["file:/dev/full?pipe"])
        let full = try #require(harness.runtime.sinks.list.first { $0.uri == "file:/dev/full?pipe" })
        #expect(full.status.errors > 0)
        #expect(full.status.lastError == "writing: no space left on device (ENOSPC)")
        #expect(full.status.bytes == 0, "nothing landed, so no bytes are counted as written")
        expectContinuous(packets, seconds: 1)
        #expect(try AudioAnalysis.opusinfo(file).warnings.isEmpty)
        #expect(harness.log.contains(.error, "file:/dev/full?pipe: writing: no space left on device (ENOSPC) (1 failed writes so far)"))
    }

    @Test func anUnwritableLocationIsRefusedAtOnceAndTheRuntimeRunsOn() throws {
        let harness = try StreamingHarness(freewheel: true, seconds: 0.2)
        #expect(throws: SinkError.cannotOpen("file:/proc/deck.opus", "cannot create /proc/deck.opus: No such file or directory")) {
            try harness.runtime.output.addSink("file:/proc/deck.opus")
        }
        try harness.start()
        #expect(harness.runUntilFinished())
    }

    @Test func sinksAreListedAddedAndRemovedWhileStreaming() throws {
        let harness = try StreamingHarness(freewheel: false, sinks: ["file:\(dir.path)/a.opus"])
        try harness.start()
        let added = try harness.runtime.output.addSink("file:\(dir.path)/b.opus")
        #expect(harness.runtime.sinks.list.map(\.uri) == ["file:\(dir.path)/a.opus", "file:\(dir.path)/b.opus"])
        harness.run(for: 0.3)
        try harness.runtime.output.removeSink(added.id)
        #expect(harness.runtime.sinks.list.map(\.id) == [1])
        #expect(throws: SinkError.noSuchSink(added.id)) { try harness.runtime.output.removeSink(added.id) }
        #expect(try #require(harness.runtime.sinks.list.first).status.packets > 5)
    }
}
