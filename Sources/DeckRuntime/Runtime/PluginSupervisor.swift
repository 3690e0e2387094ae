import DeckBase
import DeckIsolation

/// Decides what follows an isolated plugin's crash: a restart after `restartDelayMs`, doubled for
/// each earlier crash in the window, or, after `restartLimit` crashes within `restartWindowS`,
/// nothing until a client loads or launches it again. Loop-thread-confined.
final class PluginSupervisor {
    private let settings: IsolationSettings
    private let loop: EventLoop
    /// Crash times (loop milliseconds) per plugin id, within the window.
    private var crashes: [String: [UInt64]] = [:]
    private var timers: [String: LoopTimer] = [:]
    /// Runs when a restart is due, with the plugin's id.
    var restart: ((String) -> Void)?

    init(settings: IsolationSettings, loop: EventLoop) {
        self.settings = settings
        self.loop = loop
    }

    /// Records a crash of `id`; the restart delay in ms, or nil when it stays disabled.
    func crashed(_ id: String) -> Int? {
        loop.updateTime()  // the crash may be noticed after a call that waited on the host
        let now = loop.now, window = UInt64(settings.restartWindowSeconds) * 1_000
        var times = (crashes[id] ?? []).filter { now < window || $0 > now - window }
        times.append(now)
        crashes[id] = times
        guard times.count < settings.restartLimit else { return nil }
        let delay = settings.restartDelayMilliseconds << (times.count - 1)
        let timer: LoopTimer
        do { timer = try timers[id] ?? LoopTimer(loop: loop) } catch { return nil }
        timers[id] = timer
        timer.start(after: UInt64(delay)) { [unowned self] in
            timers.removeValue(forKey: id)?.close()
            restart?(id)
        }
        return delay
    }

    /// Forgets `id`'s crashes and any restart due (a client loaded, launched or unloaded it).
    func forgive(_ id: String) {
        crashes[id] = nil
        timers.removeValue(forKey: id)?.close()
    }

    func close() {
        timers.values.forEach { $0.close() }
        timers = [:]
    }
}
