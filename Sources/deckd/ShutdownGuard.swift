import CProcess
import DeckRuntime
import Glibc
import Synchronization

/// SIGTERM and SIGINT, waited for on a thread of their own (they are blocked in every other
/// thread), so a plugin call that never returns on the loop cannot keep deckd from ending: the
/// loop is asked to shut down cleanly, and if it has not within the grace time, deckd says which
/// plugin call holds it and exits with status 1. The same thread names a loop call that runs
/// past 100 ms while it still runs. It sleeps until a signal, a call to time or the grace time's
/// end: an idle deckd costs it no wake-up.
final class ShutdownGuard: @unchecked Sendable {  // `thread` and the descriptors are written before the thread starts and after it is joined; the rest is immutable or atomic.
    private let watch: LoopCallWatch
    private let logger: Logger
    private let requestStop: AsyncDoorbell.Ringer
    private let graceMilliseconds: Int
    private let finished = Atomic<Bool>(false)
    /// The control socket deckd listens on, removed if the shutdown has to be given up.
    private let socket = Mutex<String?>(nil)
    private var thread: pthread_t?
    /// SIGTERM and SIGINT as a descriptor (signalfd), and the bell a call or `finish` rings (eventfd).
    private var signals: Int32 = -1, bell: Int32 = -1

    static let signals = [SIGTERM, SIGINT]
    static let graceMilliseconds = 2_000
    /// What the plugins' teardown may take of the grace time: the rest is the sinks' and the exit's.
    static let pluginMilliseconds = 1_500

    init(watch: LoopCallWatch, logger: Logger, requestStop: AsyncDoorbell.Ringer, graceMilliseconds: Int = ShutdownGuard.graceMilliseconds) {
        self.watch = watch
        self.logger = logger
        self.requestStop = requestStop
        self.graceMilliseconds = graceMilliseconds
    }

    /// Blocks the signals in the calling thread, and so in every thread it creates from now on.
    static func blockSignals() {
        var set = ShutdownGuard.signalSet
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    private static var signalSet: sigset_t { sigset_t(signals) }

    func start() {
        var set = ShutdownGuard.signalSet
        signals = signalfd(-1, &set, Int32(SFD_CLOEXEC))
        bell = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard signals >= 0, bell >= 0 else { return giveUp(errno) }
        let bell = bell
        watch.setBell { _ = eventfd_write(bell, 1) }  // before the thread first sleeps on it
        let context = Unmanaged.passRetained(self).toOpaque()
        var handle = pthread_t()
        let status = pthread_create(&handle, nil, { context in
            Unmanaged<ShutdownGuard>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<ShutdownGuard>.fromOpaque(context).release()
            return giveUp(status)
        }
        thread = handle
    }

    private func giveUp(_ code: Int32) {
        watch.setBell {}
        closeDescriptors()
        logger.error("deckd", "cannot start the shutdown guard (\(String(cString: strerror(code)))); SIGTERM waits for the loop")
    }

    /// Removes `path` (the control socket, once ours) if the shutdown is given up.
    func removesOnGivingUp(_ path: String) { socket.withLock { $0 = path } }

    func finish() {
        finished.store(true, ordering: .releasing)
        guard let thread else { return }
        _ = eventfd_write(bell, 1)
        pthread_join(thread, nil)
        self.thread = nil
        watch.setBell {}
        closeDescriptors()
    }

    private func closeDescriptors() {
        for descriptor in [signals, bell] where descriptor >= 0 { close(descriptor) }
        (signals, bell) = (-1, -1)
    }

    private func run() {
        ThreadName.set("deck-guard")
        let slow = PluginInstance.slowCallMilliseconds
        var deadline: Int?
        var reported: LoopCallWatch.Call?
        while !finished.load(ordering: .acquiring) {
            var now = MonotonicClock.milliseconds
            var running = watch.innermost
            if running == nil || running == reported {
                // Nothing to time: armed before a second look, a call that begins after it rings.
                watch.ringOnNextCall()
                running = watch.innermost
            }
            if let running, running != reported, now - running.since > slow {
                reported = running
                logger.warning("plugins", plugin: running.plugin, "\(running.plugin): \(running.call) has not returned after \(now - running.since) ms; "
                               + "the loop (control socket, timers, other plugins) waits for it")
            }
            if let deadline, now > deadline {
                let stuck = running.flatMap { now - $0.since > slow ? $0 : nil }
                let holder = stuck.map { ": \($0.plugin)'s \($0.call) has not returned for \((now - $0.since) / 1000) s; giving it up" } ?? ""
                logger.error("deckd", "the shutdown did not finish within \(graceMilliseconds) ms\(holder); exiting now, streams unfinished")
                if let path = socket.withLock({ $0 }) { unlink(path) }
                _exit(1)
            }
            var wakeAt = deadline.map { $0 + 1 }
            if let running, running != reported { wakeAt = min(wakeAt ?? .max, running.since + slow + 1) }
            let received = wait(milliseconds: wakeAt.map { max(0, $0 - now) })
            now = MonotonicClock.milliseconds
            if received == SIGTERM || received == SIGINT, deadline == nil {
                logger.info("deckd", "\(received == SIGINT ? "SIGINT" : "SIGTERM") received, shutting down")
                deadline = now + graceMilliseconds
                requestStop.ring()
            }
        }
    }

    /// Sleeps until a signal (returned), the bell or `milliseconds` (nil: no time limit).
    private func wait(milliseconds: Int?) -> Int32? {
        var ready = [pollfd(fd: signals, events: Int16(POLLIN), revents: 0), pollfd(fd: bell, events: Int16(POLLIN), revents: 0)]
        guard poll(&ready, 2, milliseconds.map { Int32(clamping: $0) } ?? -1) > 0 else { return nil }
        var count: eventfd_t = 0
        if ready[1].revents != 0 { _ = eventfd_read(bell, &count) }
        guard ready[0].revents != 0 else { return nil }
        var information = signalfd_siginfo()
        guard read(signals, &information, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size else { return nil }
        return Int32(bitPattern: information.ssi_signo)
    }
}
