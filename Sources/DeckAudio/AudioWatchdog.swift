import DeckBase

/// Watches, on the loop, that the audio thread keeps beginning frames: the thread pushes a
/// deadline one render timeout ahead as it begins them (`deadline`), so a healthy thread costs the
/// loop no wake-up, and a render that does not return is looked at once the deadline passes.
/// Loop-thread-confined, apart from `deadline.push`.
final class AudioWatchdog {
    /// Pushed back by the audio thread at least every quarter of the timeout.
    let deadline: LoopDeadline
    /// Looks again when the deadline found a render that had not yet run for the whole timeout.
    private let again: LoopTimer
    private var check: () -> Void = {}
    /// How many times the check ran: while the thread begins frames, none.
    private(set) var checks = 0

    init(loop: EventLoop) throws(LoopError) {
        deadline = try LoopDeadline(loop: loop)
        do { again = try LoopTimer(loop: loop) } catch {
            deadline.close()
            throw error
        }
    }

    /// Runs `check` each time the thread lets the deadline pass, and when asked to look again.
    func arm(_ check: @escaping () -> Void) {
        self.check = { [unowned self] in
            checks += 1
            check()
        }
        deadline.start(self.check)
    }

    /// Looks again in `milliseconds` (a render that began after the last push has not yet run the timeout).
    func look(after milliseconds: Int) { again.start(after: UInt64(max(1, milliseconds)), check) }

    /// Clears the deadline: the thread has ended.
    func stop() {
        deadline.push(nanoseconds: 0)
        again.stop()
    }

    func close() {
        deadline.close()
        again.close()
    }
}
