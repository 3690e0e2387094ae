import DeckTestSupport
import Foundation
import Glibc
import Synchronization
import Testing
@testable import DeckAudio
@testable import DeckRuntime

/// What a packet tap's C function saw, reached through its user pointer.
private final class TapRecord: @unchecked Sendable {  // Every field is behind `lock`.
    struct Packet: Equatable {
        var bytes: [UInt8], granule: Int64, samples: UInt32, preSkip: UInt32, isLast: Bool
    }

    private let lock = NSLock()
    private var _packets: [Packet] = [], _offThread = 0, _afterClearing = 0
    let audioThread: ThreadIdentity?
    /// Set once `set(nil)` returned: a call after it is a broken promise.
    private var cleared = false
    /// Held by a call that should hang until the test lets it go.
    let hold = DispatchSemaphore(value: 0)
    let hangs = Atomic<Bool>(false)

    init(audioThread: ThreadIdentity? = nil) { self.audioThread = audioThread }

    var packets: [Packet] { lock.withLock { _packets } }
    var offThread: Int { lock.withLock { _offThread } }
    var afterClearing: Int { lock.withLock { _afterClearing } }
    func markCleared() { lock.withLock { cleared = true } }

    func take(_ packet: Packet) {
        lock.withLock {
            _packets.append(packet)
            if let audioThread, !audioThread.isCurrent { _offThread += 1 }
            if cleared { _afterClearing += 1 }
        }
    }

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ user: UnsafeMutableRawPointer?) -> TapRecord { Unmanaged<TapRecord>.fromOpaque(user!).takeUnretainedValue() }
}

private final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}

/// The tap a self-clearing function replaces itself in, and the moment it is under way.
private final class SelfClearing: @unchecked Sendable {  // `tap` is Sendable; the semaphore is thread-safe.
    let tap: PacketTap
    let entered = DispatchSemaphore(value: 0)
    init(tap: PacketTap) { self.tap = tap }
    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

private let clearItselfSlowly: PacketTap.Function = { user, _, _, _, _, _, _ in
    let seen = Unmanaged<SelfClearing>.fromOpaque(user!).takeUnretainedValue()
    seen.entered.signal()
    usleep(100_000)  // another thread's `set` is waiting for this call by now
    seen.tap.set(nil, user: nil, fromItsCall: true)
}

private let record: PacketTap.Function = { user, bytes, size, granule, samples, preSkip, isLast in
    let seen = TapRecord.from(user)
    seen.take(.init(bytes: Array(UnsafeBufferPointer(start: bytes, count: size)), granule: granule, samples: samples, preSkip: preSkip, isLast: isLast))
    if seen.hangs.load(ordering: .acquiring) { seen.hold.wait() }
}

private let recordSlowly: PacketTap.Function = { user, _, _, _, _, _, _ in
    usleep(200)  // widens the window in which a replacement could race the call
    TapRecord.from(user).take(.init(bytes: [], granule: 0, samples: 0, preSkip: 0, isLast: false))
}

@Suite struct PacketTapTests {
    let dir = TemporaryDirectory()

    /// The tap gets, on the audio thread, exactly the packets the loop later hands its sink: the
    /// same bytes, granule positions, durations and end of stream.
    @Test func theTapTakesItsSinksPacketsOnTheAudioThread() throws {
        let harness = try StreamingHarness(freewheel: true, seconds: 1)
        var delivered: [EncodedPacket] = []
        let sink = harness.runtime.output.attach(CallbackSink(name: "embedding") { delivered.append($0) })
        let seen = TapRecord(audioThread: harness.runtime.audio.audioThread)
        harness.runtime.output.tapPackets(ofSink: sink.id)
        harness.runtime.audio.packetTap.set(record, user: seen.pointer)
        try harness.start()
        #expect(harness.runUntilFinished())
        let preSkip = UInt32(harness.runtime.audio.preSkip)
        #expect(delivered.count == 51)  // 50 frames of audio, one more for the encoder's delay
        let expected: [TapRecord.Packet] = delivered.map { packet in
            TapRecord.Packet(bytes: packet.bytes, granule: packet.granule(), samples: UInt32(packet.samples), preSkip: preSkip, isLast: packet.isLast)
        }
        #expect(seen.packets == expected)
        #expect(seen.packets.last?.isLast == true && seen.packets.dropLast().allSatisfy { !$0.isLast })
        #expect(seen.offThread == 0)
    }

    /// With app audio sent to another sink only, the tap's sink takes a mix of its own (silence
    /// here): the tap follows its sink's mix, not the first one.
    @Test func theTapFollowsItsSinkToItsOwnMix() throws {
        let harness = try StreamingHarness(freewheel: true, seconds: 1, isolation: .inline)
        let plugin = try harness.load(try Fixture.bundle(in: dir.path))
        var speakers: [EncodedPacket] = [], embedding: [EncodedPacket] = []
        harness.runtime.output.attach(CallbackSink(name: "speakers") { speakers.append($0) }, label: SinkLabel(name: "Speakers"))
        let sink = harness.runtime.output.attach(CallbackSink(name: "embedding") { embedding.append($0) }, label: SinkLabel(name: "Embedding"))
        harness.runtime.output.select(names: ["Speakers"])
        let seen = TapRecord()
        harness.runtime.output.tapPackets(ofSink: sink.id)
        harness.runtime.audio.packetTap.set(record, user: seen.pointer)
        try harness.runtime.focus.play(pluginID: plugin.id, item: "sine-440")
        try harness.start()
        #expect(harness.runUntilFinished())
        #expect(seen.packets.map(\.bytes) == embedding.map(\.bytes))
        #expect(embedding.map(\.bytes) != speakers.map(\.bytes))
        let toneBytes = speakers.reduce(0) { $0 + $1.bytes.count }, silenceBytes = embedding.reduce(0) { $0 + $1.bytes.count }
        #expect(toneBytes > 4 * silenceBytes, "the tone against silence")
    }

    /// Once `set` returns, the function it replaced is not running and is not called again, while
    /// another thread delivers packets back to back (a setter waits for one call, not for a gap).
    @Test func aReplacedFunctionIsNeverCalledOnceSetReturns() throws {
        let tap = PacketTap()
        let stop = StopFlag()
        let deliverer = Thread {
            let packet: [UInt8] = [1, 2, 3]
            while !stop.value.load(ordering: .acquiring) { packet.withUnsafeBufferPointer { tap.deliver($0.baseAddress!, count: 3, granule: 0, samples: 960, preSkip: 312, isLast: false) } }
        }
        deliverer.start()
        let records = (0..<100).map { _ in TapRecord() }
        let began = MonotonicClock.seconds
        for seen in records {
            tap.set(recordSlowly, user: seen.pointer)
            usleep(500)
            tap.set(nil, user: nil)
            seen.markCleared()
        }
        let took = MonotonicClock.seconds - began
        stop.value.store(true, ordering: .releasing)
        #expect(took < 10, "100 replacements took \(took) s: a setter waited for a gap between calls")
        let calls = records.reduce(0) { $0 + $1.packets.count }, late = records.reduce(0) { $0 + $1.afterClearing }
        #expect(calls >= 10, "the calls raced the replacements")
        #expect(late == 0)
    }

    /// A function that clears itself while another thread's `set` waits for that very call: both
    /// return (a setter holds nothing the function needs).
    @Test func aFunctionClearsItselfWhileAnotherThreadWaitsForIt() {
        let tap = PacketTap()
        let seen = SelfClearing(tap: tap)
        tap.set(clearItselfSlowly, user: seen.pointer)
        let deliverer = Thread {
            let packet: [UInt8] = [1]
            packet.withUnsafeBufferPointer { tap.deliver($0.baseAddress!, count: 1, granule: 0, samples: 960, preSkip: 312, isLast: false) }
        }
        deliverer.start()
        #expect(seen.entered.wait(timeout: .now() + 5) == .success)
        let setterDone = DispatchSemaphore(value: 0)
        Thread {
            tap.set(nil, user: nil)  // waits for the call, which meanwhile replaces itself
            setterDone.signal()
        }.start()
        #expect(setterDone.wait(timeout: .now() + 5) == .success, "the setter and the function waited for each other")
        #expect(!tap.isSet)
    }

    /// A function that does not return is named once the render timeout has passed; the output
    /// carries on once it returns.
    @Test func aTapThatDoesNotReturnIsLoggedAfterTheRenderTimeout() throws {
        let harness = try StreamingHarness(freewheel: false) { $0.audio.renderTimeoutMilliseconds = 300 }
        let sink = harness.runtime.output.attach(CallbackSink(name: "embedding", batchMilliseconds: .max) { _ in })
        let seen = TapRecord()
        seen.hangs.store(true, ordering: .releasing)
        harness.runtime.output.tapPackets(ofSink: sink.id)
        harness.runtime.audio.packetTap.set(record, user: seen.pointer)
        try harness.start()
        let began = MonotonicClock.seconds
        let message = "the embedder's audio-thread packet callback has not returned for 300 ms"
        #expect(turnLoop(harness.runtime.loop, seconds: 5) { harness.log.contains(.error, message) })
        #expect(MonotonicClock.seconds - began >= 0.3)
        seen.hangs.store(false, ordering: .releasing)
        seen.hold.signal()
        let frames = harness.runtime.audio.stats.frames.load(ordering: .relaxed)
        harness.run(for: 0.3)
        #expect(harness.runtime.audio.stats.frames.load(ordering: .relaxed) > frames + 5)
        #expect(harness.log.all.filter { $0.message.contains(message) }.count == 1)
        harness.runtime.audio.packetTap.set(nil, user: nil)  // before `seen` goes
    }
}
