import DeckBase

/// Watches, on the loop, that the audio thread keeps beginning frames: one that begins none for
/// longer than the render timeout is stalled (a render that does not return). Loop-thread-confined.
final class AudioWatchdog {
    private let timer: LoopTimer
    private let loop: EventLoop
    private let timeoutMilliseconds: UInt64
    private var lastFramesBegun: Int64 = -1
    private var lastProgressAt: UInt64 = 0
    /// Frames begun when the packets last re-armed the timer: the checks between two drains note
    /// progress too, so they must not hide it from the next drain.
    private var lastDrainBegun: Int64 = -1
    private var period: UInt64 = 0
    private var check: () -> Void = {}
    /// How many times the check ran: while packets flow, none.
    private(set) var checks = 0

    init(loop: EventLoop, timeoutMilliseconds: Int) throws(LoopError) {
        timer = try LoopTimer(loop: loop)
        self.loop = loop
        self.timeoutMilliseconds = UInt64(timeoutMilliseconds)
    }

    /// Runs `check` every `period` ms, from a fresh start (a new thread has made no progress yet).
    func arm(every period: UInt64, _ check: @escaping () -> Void) {
        lastFramesBegun = -1
        lastDrainBegun = -1
        self.period = period
        self.check = { [unowned self] in
            checks += 1
            check()
        }
        timer.start(after: period, repeat: period, self.check)
    }

    /// The loop saw the thread's packets, which come every `batch` ms: while they do, the checks
    /// wait until the timeout could have passed after the next batch is due, so a healthy thread
    /// costs the loop no wake-up of the watchdog's own.
    func sawProgress(_ begun: Int64, batch: UInt64) {
        guard period > 0, begun != lastDrainBegun else { return }
        lastDrainBegun = begun
        _ = progressed(begun)
        timer.start(after: timeoutMilliseconds + batch + 1, repeat: period, check)
    }

    func stop() { timer.stop() }
    func close() { timer.close() }

    /// Notes how many frames the thread has begun; true when that is progress since the last look.
    func progressed(_ begun: Int64) -> Bool {
        guard begun != lastFramesBegun else { return false }
        lastFramesBegun = begun
        lastProgressAt = loop.now
        return true
    }

    /// Whether the thread, having begun `begun` frames, has made no progress for longer than the timeout.
    func isStalled(_ begun: Int64) -> Bool { lastFramesBegun == begun && loop.now - lastProgressAt > timeoutMilliseconds }
}
