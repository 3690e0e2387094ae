import DeckRuntime
import Glibc
import Synchronization

/// SIGTERM and SIGINT, waited for on a thread of their own (they are blocked in every other
/// thread), so a plugin call that never returns on the loop cannot keep deckd from ending: the
/// loop is asked to shut down cleanly, and if it has not within the grace time, deckd says which
/// plugin call holds it and exits with status 1. The same thread names a loop call that runs
/// past 100 ms while it still runs.
final class ShutdownGuard: @unchecked Sendable {  // `thread` is written once before the thread starts; the rest is immutable or atomic.
    private let watch: LoopCallWatch
    private let logger: Logger
    private let requestStop: AsyncDoorbell.Ringer
    private let graceMilliseconds: Int
    private let finished = Atomic<Bool>(false)
    /// The control socket deckd listens on, removed if the shutdown has to be given up.
    private let socket = Mutex<String?>(nil)
    private var thread: pthread_t?

    static let signals = [SIGTERM, SIGINT]

    init(watch: LoopCallWatch, logger: Logger, requestStop: AsyncDoorbell.Ringer, graceMilliseconds: Int = 2_000) {
        self.watch = watch
        self.logger = logger
        self.requestStop = requestStop
        self.graceMilliseconds = graceMilliseconds
    }

    /// Blocks the signals in the calling thread, and so in every thread it creates from now on.
    static func blockSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        signals.forEach { sigaddset(&set, $0) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    func start() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var handle = pthread_t()
        guard pthread_create(&handle, nil, { context in
            Unmanaged<ShutdownGuard>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context) == 0 else {
            Unmanaged<ShutdownGuard>.fromOpaque(context).release()
            return logger.error("deckd", "cannot start the shutdown guard; SIGTERM waits for the loop")
        }
        thread = handle
    }

    /// Removes `path` (the control socket, once ours) if the shutdown is given up.
    func removesOnGivingUp(_ path: String) { socket.withLock { $0 = path } }

    func finish() {
        finished.store(true, ordering: .releasing)
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    private func run() {
        var set = sigset_t()
        sigemptyset(&set)
        ShutdownGuard.signals.forEach { sigaddset(&set, $0) }
        var deadline: Int?
        var reported: LoopCallWatch.Call?
        while !finished.load(ordering: .acquiring) {
            var wait = timespec(tv_sec: 0, tv_nsec: 100_000_000)
            let received = sigtimedwait(&set, nil, &wait)
            let now = MonotonicClock.milliseconds
            if received == SIGTERM || received == SIGINT, deadline == nil {
                logger.info("deckd", "\(received == SIGINT ? "SIGINT" : "SIGTERM") received, shutting down")
                deadline = now + graceMilliseconds
                requestStop.ring()
            }
            let stuck = watch.stuck(longerThan: PluginInstance.slowCallMilliseconds, now: now)
            if let stuck, stuck != reported {
                reported = stuck
                logger.warning("plugins", plugin: stuck.plugin, "\(stuck.plugin): \(stuck.call) has not returned after \(now - stuck.since) ms; "
                               + "the loop (control socket, timers, other plugins) waits for it")
            }
            if let deadline, now > deadline {
                let holder = stuck.map { ": \($0.plugin)'s \($0.call) has not returned for \((now - $0.since) / 1000) s; giving it up" } ?? ""
                logger.error("deckd", "the shutdown did not finish within \(graceMilliseconds) ms\(holder); exiting now, streams unfinished")
                if let path = socket.withLock({ $0 }) { unlink(path) }
                _exit(1)
            }
        }
    }
}
