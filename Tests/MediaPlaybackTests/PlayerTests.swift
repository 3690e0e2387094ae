import DeckTestSupport
import Foundation
@testable import MediaPlayback
import Synchronization
import Testing

/// How the player hands frames from its decode thread to render, and tells its app on the loop
/// thread which item sounds.
@Suite struct PlayerTests {
    let dir = TemporaryDirectory()

    /// Files of `frames` frames each, item `n` at level (n + 1) / 100.
    private func items(_ count: Int, frames: Int) throws -> [PlayerItem] {
        try (0..<count).map { index in
            let path = dir.path + "/\(index).wav"
            try WAVFile.writeFloat([Float](repeating: Float(index + 1) / 100, count: frames * 2), to: path)
            return PlayerItem(url: path)
        }
    }

    @Test func everyItemThatBeginsToSoundIsToldToTheLoopInOrder() throws {
        let recording = RecordingHost()
        let player = Player(host: recording.host)
        player.start()
        defer { player.shutDown() }
        let count = 40, itemFrames = 2_400, period = 480
        player.play(try items(count, frames: itemFrames), from: 0)
        var buffer = [Float](repeating: 0, count: period * 2)
        var handled = 0
        var told: [Int] = []
        let deadline = Date().addingTimeInterval(20)
        // One render period, then every callback it or the decode thread asked for, as a loop answers them.
        while !player.hasFinished, Date() < deadline {
            _ = buffer.withUnsafeMutableBufferPointer { player.render(frames: period, into: $0.baseAddress!) }
            let requested = recording.callbacksRequested.load(ordering: .sequentiallyConsistent)
            guard requested > handled else {
                usleep(100)
                continue
            }
            handled = requested
            _ = player.events()
            player.armNextMark()
            if let index = player.current?.index, told.last != index { told.append(index) }
        }
        #expect(player.hasFinished, "the list did not play to its end in 20 s")
        #expect(told == Array(0..<count), "the loop saw items \(told)")
    }

    /// The decode thread arms the render thread's next look as the loop re-arms it from what it
    /// saw: neither may undo the other, or an item begins to sound untold.
    @Test func aMarkAddedWhileTheLoopReArmsIsNeverDisarmed() throws {
        let recording = RecordingHost()
        let player = Player(host: recording.host)
        let frame: [Float] = [0, 0]  // one stereo frame
        #expect(player.ringForDecoding.write(frame, frames: 1) == 1)  // a mark at frame 1 lies ahead of the reader
        let stop = Atomic<Bool>(false), rearmed = Atomic<Int>(0), ended = DispatchSemaphore(value: 0)
        Thread {
            while !stop.load(ordering: .relaxed) {
                player.armNextMark()
                rearmed.add(1, ordering: .relaxed)
            }
            ended.signal()
        }.start()
        // Readers of the position contend for the marks as the loop's own reads do, so the loop waits between its looks.
        Thread {
            while !stop.load(ordering: .relaxed) { _ = player.current }
            ended.signal()
        }.start()
        while rearmed.load(ordering: .relaxed) == 0 { sched_yield() }  // the loop re-arms all along
        var disarmed = 0
        for serial in 1...500_000 {
            let generation = player.beginGeneration(serving: serial, live: false)
            player.mark(Player.Mark(frame: 1, index: 0, offset: 0, generation: generation))
            if player.armedMark != 1 { disarmed += 1 }
        }
        stop.store(true, ordering: .relaxed)
        ended.wait()
        ended.wait()
        #expect(disarmed == 0, "a mark just added was disarmed \(disarmed) times in 500,000 (\(rearmed.load(ordering: .relaxed)) re-arms)")
    }

    /// A seek while the ring is full of the old position's frames: the decode thread fits what it
    /// can of the new one into the room left (less than a render period here) and sleeps for more.
    /// The reader skipping the old frames frees the whole ring, and must say so, or the seek never
    /// sounds and the queue never ends. In freewheel too, where render waits for the decode thread.
    @Test(arguments: [false, true])
    func aSeekIntoAFullRingPlaysOnceTheReaderSkipsWhatWasQueuedBefore(freewheeling: Bool) throws {
        let recording = RecordingHost(freewheeling: freewheeling)
        let player = Player(host: recording.host)
        player.start()
        defer { player.shutDown() }
        let item = try items(1, frames: 48_000 * 6)
        let ring = player.ringForDecoding
        var buffer = [Float](repeating: 0, count: 960 * 2)
        func render(_ frames: Int) { _ = buffer.withUnsafeMutableBufferPointer { player.render(frames: frames, into: $0.baseAddress!) } }
        func waitUntil(_ condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while !condition() { if Date() > deadline { return false }; usleep(500) }
            return true
        }
        player.play(item, from: 0)
        #expect(waitUntil { ring.space == 0 }, "the decode thread fills the ring (4 s) and sleeps for room")
        render(480)  // 480 frames of room, less than the next periods: the decode thread sleeps on
        let before = ring.written.load(ordering: .relaxed)
        player.play(item, from: 0, at: 5.5)
        #expect(waitUntil { ring.written.load(ordering: .relaxed) == before + 480 }, "the new position's first frames fill the room")
        #expect(waitUntil {
            render(960)
            return player.hasFinished
        }, "the last 0.5 s never came: \(ring.written.load(ordering: .relaxed) - before) frames written after the seek")
    }
}
