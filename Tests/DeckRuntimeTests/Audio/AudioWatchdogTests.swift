import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckPlugins
@testable import DeckAudio

/// A plugin whose render never returns no longer takes the car's audio down: the watchdog names
/// it, drops its stream, and the output goes on in a fresh audio thread, without a break in the
/// file, and the runtime still shuts down with end of stream.
@Suite struct AudioWatchdogTests {
    let dir = TemporaryDirectory()

    /// While the thread begins frames it pushes the watchdog's deadline ahead: the check never
    /// wakes the loop (it woke it every frame, then once per batch of packets).
    @Test func aHealthyOutputCostsTheLoopNoWatchdogWakeUps() throws {
        let harness = try StreamingHarness(freewheel: false, sinks: ["file:\(dir.path)/healthy.opus"], isolation: .inline)
        let radio = try harness.load(try Fixture.app(in: dir.path, "Radio", id: "org.example.radio", entitlements: ["audio"]))
        try harness.start()
        #expect(!harness.runtime.audio.isStalled, "a thread that has not begun its first frame yet is not stalled")
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        harness.run(for: 0.2)
        let checks = harness.runtime.audio.watchdog.checks
        harness.run(for: 1)
        #expect(harness.runtime.audio.stats.frames.load(ordering: .relaxed) > 40)
        // None while frames begin; two allow an audio thread held past the render timeout by a loaded machine.
        #expect(harness.runtime.audio.watchdog.checks <= checks + 2)
        #expect(!harness.runtime.audio.isStalled)
    }

    /// The deadline is the thread's to push: once it stops, the check runs once, and a thread
    /// that ended is no longer watched.
    @Test func aThreadThatStopsPushingIsLookedAtOnce() throws {
        let loop = try EventLoop()
        let watchdog = try AudioWatchdog(loop: loop)
        defer { watchdog.close(); loop.runNoWait() }
        watchdog.arm {}
        watchdog.deadline.push(nanoseconds: 30_000_000)
        #expect(turnLoop(loop, seconds: 2) { watchdog.checks == 1 })
        turnLoop(loop, seconds: 0.2) { false }
        #expect(watchdog.checks == 1)
        watchdog.deadline.push(nanoseconds: 30_000_000)
        watchdog.stop()
        turnLoop(loop, seconds: 0.2) { false }
        #expect(watchdog.checks == 1)
        watchdog.look(after: 10)
        #expect(turnLoop(loop, seconds: 2) { watchdog.checks == 2 })
    }

    /// The timeout counts from the render's own start: a hang is found one render timeout after
    /// it began, not after a timeout of quiet on top.
    @Test func aHungRenderIsFoundOneRenderTimeoutAfterItBegan() throws {
        let harness = try StreamingHarness(freewheel: false, sinks: ["file:\(dir.path)/timing.opus"], isolation: .inline) {
            $0.audio.renderTimeoutMilliseconds = 1_000
        }
        let maps = try harness.load(try Fixture.app(in: dir.path, "Maps", id: "org.example.maps", entitlements: ["maps"]))
        try harness.start()
        harness.run(for: 0.3)
        let asked = MonotonicClock.seconds
        try harness.runtime.focus.play(pluginID: maps.id, item: "hang@navigation/3")  // 10 frames of sine, then the hang
        #expect(turnLoop(harness.runtime.loop, seconds: 5) { maps.state == .hung })
        let found = MonotonicClock.seconds - asked
        // 0.2 s of sine, then 1 s of render, then the check (no batch of packets on top); counting
        // from the last progress the loop saw would add the whole timeout again (2.2–2.3 s).
        #expect(found > 1.1 && found < 1.6, "found after \(found) s")
        #expect(harness.shutDown(), "the file's writer did not finish")
    }

    @Test func aHungRenderIsDroppedAndTheOthersPlayOnInAFreshAudioThread() throws {
        let path = dir.path + "/watchdog.opus"
        let harness = try StreamingHarness(freewheel: false, sinks: ["file:\(path)"], isolation: .inline)
        let radio = try harness.load(try Fixture.app(in: dir.path, "Radio", id: "org.example.radio", entitlements: ["audio"]))
        let maps = try harness.load(try Fixture.app(in: dir.path, "Maps", id: "org.example.maps", entitlements: ["maps"]))
        try harness.start()
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        harness.run(for: 0.5)
        let first = harness.runtime.audio.worker.kernelThread.load(ordering: .acquiring)
        try harness.runtime.focus.play(pluginID: maps.id, item: "hang@navigation/3")
        #expect(turnLoop(harness.runtime.loop, seconds: 5) { maps.state == .hung })
        #expect(harness.log.contains(.error, "org.example.maps's render has not returned for 200 ms (audio.renderTimeoutMs)"))
        #expect(harness.log.contains(.error, "org.example.maps is hung: it is never called again and its library stays loaded"))
        #expect(harness.runtime.abandonedPlugins == ["org.example.maps"])
        #expect(harness.runtime.session.arbiter.holder(.plugin(maps.id)) == nil)  // its focus went, the radio is unducked
        let frames = harness.runtime.audio.stats.frames.load(ordering: .relaxed)
        harness.run(for: 1)
        #expect(harness.runtime.audio.stats.frames.load(ordering: .relaxed) > frames + 40)  // the output goes on
        #expect(harness.runtime.info["output"]?["running"] == true)
        // The fresh thread is real-time as the first was (which still hangs in the render).
        try #require(harness.log.all.contains { $0.message.contains("paced, real-time priority") }, "real-time scheduling needs root or RLIMIT_RTPRIO")
        let fresh = harness.runtime.audio.worker.kernelThread.load(ordering: .acquiring)
        #expect(fresh > 0 && fresh != first && sched_getscheduler(first) == SCHED_FIFO && sched_getscheduler(fresh) == SCHED_FIFO,
                "\(first): \(sched_getscheduler(first)), \(fresh): \(sched_getscheduler(fresh))")
        #expect(throws: PluginCallError.self) { try harness.runtime.focus.play(pluginID: maps.id, item: "sine-880") }
        #expect(harness.shutDown(), "the file's writer did not finish")

        let info = try AudioAnalysis.opusinfo(path)
        #expect(info.status == 0 && info.warnings.isEmpty, "\(info.output)")
        #expect(info.output.contains("Logical stream 1 ended"))
        // The radio's sine runs through: no silence longer than the render timeout plus a frame.
        let left = try AudioAnalysis.decodeWithFFmpeg(path).left
        var longest = 0, run = 0
        for sample in left[4_800..<(left.count - 4_800)] {
            run = abs(sample) < 1e-3 ? run + 1 : 0
            longest = max(longest, run)
        }
        #expect(longest < 48 * 250, "a gap of \(longest / 48) ms")
        #expect(abs(try AudioAnalysis.dominantFrequency(left, start: left.count - 40_000) - 440) < 3)
    }
}
