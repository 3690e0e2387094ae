import DeckTestSupport
import Foundation
import Glibc
import Synchronization
import Testing
@testable import DeckRuntime
@testable import DeckAudio

/// The audio thread's page faults so far, read by a packet tap after each packet.
private final class FaultRecord: @unchecked Sendable {  // `counts` is written by the audio thread only, and read once it stopped.
    let counts: UnsafeMutablePointer<Int>
    let capacity: Int
    let next = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = capacity
        counts = .allocate(capacity: capacity)
        counts.initialize(repeating: -1, count: capacity)  // written now, so recording costs no fault
    }

    deinit { counts.deallocate() }

    var values: [Int] { Array(UnsafeBufferPointer(start: counts, count: min(next.load(ordering: .acquiring), capacity))) }
    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

private let recordFaults: PacketTap.Function = { user, _, _, _, _, _, _ in
    let record = Unmanaged<FaultRecord>.fromOpaque(user!).takeUnretainedValue()
    var usage = rusage()
    getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD: the audio thread's own
    let index = record.next.load(ordering: .relaxed)
    if index < record.capacity { record.counts[index] = usage.ru_minflt }
    record.next.store(index + 1, ordering: .releasing)
}

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

    /// The audio thread never waits for the kernel to find it memory: it writes its packet ring's
    /// pages and its mix buffers before its first frame, so no new slot costs a page fault (it cost
    /// one a frame for the ring's first ten seconds when each slot's first packet wrote its page,
    /// and the end of the output, which clears every bus, up to five more).
    @Test func theAudioThreadTakesNoPageFaultOnceRunning() throws {
        let harness = try StreamingHarness(freewheel: true, seconds: 10)
        let sink = harness.runtime.output.attach(CallbackSink(name: "embedding") { _ in })
        let faults = FaultRecord(capacity: 600)
        harness.runtime.output.tapPackets(ofSink: sink.id)
        harness.runtime.audio.packetTap.set(recordFaults, user: faults.pointer)
        try harness.start()
        #expect(harness.runUntilFinished())
        let counts = faults.values
        try #require(counts.count == 501)
        #expect(counts[500] - counts[25] == 0, "page faults on the audio thread between its 25th and 500th packet")
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

    /// Any process of the runtime's uid may take the paced audio thread's real-time scheduling
    /// (not a plugin's host, whose filter refuses it): the thread takes it back within a second, and the log says so.
    @Test func pacedOutputTakesBackItsRealTimeSchedulingWhenItIsTaken() throws {
        let harness = try StreamingHarness(freewheel: false)
        try harness.start()
        harness.run(for: 0.1)
        try #require(harness.log.all.contains { $0.message.contains("paced, real-time priority") }, "real-time scheduling needs root or RLIMIT_RTPRIO")
        let audio = harness.runtime.audio.worker.kernelThread.load(ordering: .acquiring)
        #expect(audio > 0 && sched_getscheduler(audio) == SCHED_FIFO)
        var normal = sched_param(sched_priority: 0)
        #expect(sched_setscheduler(audio, SCHED_OTHER, &normal) == 0)
        harness.run(for: 1.5)
        #expect(sched_getscheduler(audio) == SCHED_FIFO)
        #expect(harness.runtime.audio.stats.realtimeRetaken.load(ordering: .relaxed) == 1)
        #expect(harness.log.all.filter { $0.message.contains("real-time scheduling had been taken by another process of this uid; taken back (1 time(s) so far)") }.count == 1)
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

    /// Paced, the audio thread wakes the loop once per batch the strictest sink allows: here a
    /// sink that takes packets 100 ms at a time (as HTTP sinks do; an Ogg file sink alone, 500 ms)
    /// gets five 20 ms frames at a time, a sink that wants each packet gets it at once, and so
    /// does the PCM tap's reader.
    @Test func packetsWaitForTheLoopOnlyAsLongAsTheStrictestSinkAllows() throws {
        let harness = try StreamingHarness(freewheel: false, sinks: ["file:\(dir.path)/batched.opus"])
        var arrivals: [Int] = []
        harness.runtime.output.attach(CallbackSink(name: "batched", batchMilliseconds: 100) { _ in arrivals.append(MonotonicClock.nanoseconds) })
        try harness.start()  // opens the file sink
        #expect(harness.runtime.sinks.batchMilliseconds == 100)
        #expect(harness.runtime.audio.batchFrames == 5)
        harness.run(for: 1)
        // Packets handed over in one drain arrive together; one a frame arrive 20 ms apart.
        func together(_ times: ArraySlice<Int>) -> Double {
            let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
            return Double(gaps.filter { $0 < 5_000_000 }.count) / Double(max(gaps.count, 1))
        }
        #expect(arrivals.count >= 40)
        #expect(together(arrivals[...]) >= 0.6, "4 of every 5 packets come with the one before")

        let eager = harness.runtime.output.attach(CallbackSink(name: "eager") { _ in })
        #expect(harness.runtime.audio.batchFrames == 1)
        harness.run(for: 0.2)  // the frames already waiting arrive
        let mark = arrivals.count
        harness.run(for: 1)
        #expect(together(arrivals[mark...]) <= 0.4, "each packet comes on its own")

        try harness.runtime.output.removeSink(eager.id)
        #expect(harness.runtime.audio.batchFrames == 5)
        harness.runtime.audio.enablePCMTap()
        #expect(harness.runtime.audio.batchFrames == 1)  // the tap's reader wants each frame's mix
        #expect(harness.runtime.audio.stats.droppedPackets.load(ordering: .relaxed) == 0)
    }

    /// A batch never outlasts a second nor an eighth of the packet ring (so four buses' packets
    /// fit twice over), and is at least one frame, whatever the frame size.
    @Test func aBatchStaysWithinASecondThePacketRingAndAFrame() throws {
        let file = try StreamingHarness(freewheel: false, sinks: ["file:\(dir.path)/alone.opus"])
        try file.start()
        #expect(file.runtime.audio.batchFrames == 25)  // an Ogg file sink alone: 500 ms
        let short = try StreamingHarness(freewheel: false) { $0.audio.packetBufferMilliseconds = 400 }
        short.runtime.output.attach(CallbackSink(name: "slow", batchMilliseconds: 1_000) { _ in })
        #expect(short.runtime.audio.batchFrames == 2)  // a ring of 20 packets: 2 frames of 4 buses, twice
        let long = try StreamingHarness(freewheel: false) { $0.audio.frameSize = try! FrameSize(milliseconds: 60) }
        long.runtime.output.attach(CallbackSink(name: "ogg-like", batchMilliseconds: 100) { _ in })
        #expect(long.runtime.audio.batchFrames == 1)
        let none = try StreamingHarness(freewheel: false)
        #expect(none.runtime.sinks.batchMilliseconds == nil)
        #expect(none.runtime.audio.batchFrames == 50)  // nothing waits for packets: a second
        let odd = try StreamingHarness(freewheel: false)
        odd.runtime.output.attach(CallbackSink(name: "odd", batchMilliseconds: .min) { _ in })
        #expect(odd.runtime.audio.batchFrames == 1)  // any Int a sink gives is taken as "at once" or capped
        odd.runtime.output.attach(CallbackSink(name: "huge", batchMilliseconds: .max) { _ in })
        #expect(odd.runtime.audio.batchFrames == 1)
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
