import CSystemd
import DeckRuntime
import Glibc

/// systemd's notify protocol, for deckd started as a `Type=notify` service: `READY=1` once the
/// plugins are loaded and the output can start, `RELOADING=1`/`READY=1` around a rescan,
/// `STOPPING=1`, a one-line `STATUS=` kept current, and `WATCHDOG=1` at half the unit's
/// `WatchdogSec` — sent from the loop, and only while the audio thread makes progress, so a stuck
/// loop or audio thread lets systemd restart deckd. Without `NOTIFY_SOCKET` it does nothing.
/// Loop-thread-confined.
final class ServiceNotifier {
    private let runtime: Runtime
    private var timer: LoopTimer?
    private var status = ""
    private var toldFailure = false

    init(runtime: Runtime) {
        self.runtime = runtime
    }

    /// Whether systemd (or another service manager) listens.
    var isListening: Bool { getenv("NOTIFY_SOCKET") != nil }

    /// deckd serves: the plugins are loaded and the output started (or waits for audio).
    func ready() throws(LoopError) {
        guard isListening else { return }
        status = summary
        send("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())")
        var interval: UInt64 = 0
        let watchdog = sd_watchdog_enabled(0, &interval) > 0 && interval > 0
        let period = watchdog ? max(1, interval / 2_000) : 1_000  // ms: half the watchdog's, else a status check a second
        let timer = try LoopTimer(loop: runtime.loop)
        timer.start(after: period, repeat: period) { [unowned self] in tick(watchdog: watchdog) }
        self.timer = timer
    }

    func reloading() {
        guard isListening else { return }
        send("RELOADING=1\nMONOTONIC_USEC=\(MonotonicClock.microseconds)")
    }

    func reloaded() {
        guard isListening else { return }
        status = summary
        send("READY=1\nSTATUS=\(status)")
    }

    func stopping() {
        timer?.close()
        timer = nil
        guard isListening else { return }
        send("STOPPING=1\nSTATUS=stopping")
    }

    /// "2 apps, 0 refused; output active; 1 sink" — what changes rarely, unlike frame counts.
    var summary: String {
        "\(runtime.plugins.count) app(s), \(runtime.plugins.loadFailures.count) refused; "
            + "output \(runtime.zones.isActive ? "active" : "inactive"); \(runtime.sinks.count) sink(s)"
    }

    private func tick(watchdog: Bool) {
        var message: [String] = []
        if watchdog && !runtime.audio.isStalled { message.append("WATCHDOG=1") }
        let now = summary
        if now != status {
            status = now
            message.append("STATUS=\(now)")
        }
        if !message.isEmpty { send(message.joined(separator: "\n")) }
    }

    /// Sends `state`; the first failure is logged, since a `Type=notify` unit that never hears
    /// READY=1 is killed at its start timeout with nothing in deckd's log to say why.
    private func send(_ state: String) {
        let result = sd_notify(0, state)
        guard result < 0, !toldFailure else { return }
        toldFailure = true
        let socket = getenv("NOTIFY_SOCKET").map { String(cString: $0) } ?? ""
        runtime.logger.warning("deckd", "cannot notify the service manager at NOTIFY_SOCKET=\"\(socket)\": \(String(cString: strerror(-result))); "
                               + "a Type=notify unit waits for READY=1 until its start timeout")
    }
}
