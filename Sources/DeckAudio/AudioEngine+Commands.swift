import Glibc

/// The command ring to the audio thread: commands are pushed in order and applied at the start
/// of its next frame (by the loop itself while no thread runs); the loop may wait until one is.
extension AudioEngine {
    @discardableResult
    func send(_ command: AudioCommand) -> Int {
        while !worker.commands.push(command) {
            var pause = timespec(tv_sec: 0, tv_nsec: 100_000)
            nanosleep(&pause, nil)
        }
        sentCommands += 1
        if !threadRunning { worker.applyCommands() }
        return sentCommands
    }

    /// Before start and after the thread ends, the loop may touch the mixer itself.
    var threadRunning: Bool { thread != nil && !worker.finished.load(ordering: .acquiring) }

    func waitUntilApplied(_ sequence: Int) {
        while worker.appliedCommands.load(ordering: .acquiring) < sequence {
            if !threadRunning { worker.applyCommands(); continue }
            pauseAndDrain()
        }
    }

    /// Takes the packets that arrived and sleeps 100 µs: one turn of a wait on the audio thread.
    func pauseAndDrain() {
        drainPackets()
        var pause = timespec(tv_sec: 0, tv_nsec: 100_000)
        nanosleep(&pause, nil)
    }
}
