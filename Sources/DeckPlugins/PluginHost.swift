import CDeckPlugin
import DeckBase
import Glibc
import Synchronization

/// The host side of the ABI for one plugin instance: the `deck_host_t` it is handed and the
/// state its callbacks read. Plugins call in from any thread, so every field is immutable,
/// atomic or locked.
package final class PluginHost: Sendable {
    /// Lifecycle as seen from any thread (the loop thread's `PluginInstance` is the authority).
    package enum Phase: Int { case loading, running, destroyed }

    package let pluginID: String
    package let instance: Int
    package let entitlements: Set<Entitlement>
    /// What its sandbox lets it reach (declared and granted).
    package let permissions: Set<Permission>
    /// The folder it may write, kept across restarts; nil when the runtime keeps none.
    package let dataFolder: String?
    private let dataFolderText: CStringBox?
    /// The integrator's settings for it, as JSON object text.
    package let settings: String
    private let settingsText: CStringBox
    /// Whether the output renders as fast as it can rather than in real time (`is_freewheeling`).
    package let isFreewheeling: Bool
    package let logger: Logger
    let loopThread: ThreadIdentity
    package let callbacks: CallbackRequests
    package let actions: HostActions
    package let phase = Atomic<Int>(Phase.loading.rawValue)
    /// Set between a plugin's request and its delivery, so repeated requests coalesce.
    package let callbackPending = Atomic<Bool>(false)
    /// `last_error` as the loop thread reads it; only the loop thread replaces it.
    private let lastErrorText = Mutex<CStringBox>(CStringBox(""))
    /// `last_error` as any other thread reads it: always one of `offLoopRefusals`, never freed,
    /// so a refusal on one thread cannot free the string another thread is reading.
    private let offLoopErrorText = Mutex<CStringBox>(PluginHost.offLoopRefusal(""))
    /// The last error the plugin logged, quoted when one of its own calls fails.
    private let lastLoggedErrorText = Mutex<String>("")
    private let logBudget = Mutex(PluginLogBudget())
    /// For lines from the plugin's host process, which holds them to `logBudget`'s limits itself.
    private let forwardedLogBudget = Mutex(PluginLogBudget(scale: 2))
    /// Loop-thread calls made from another thread: one warning line per burst.
    private let wrongThreadCalls = Mutex(LogThrottle())
    /// The C structs handed to the plugin; stable addresses until this host is freed.
    let structs: HostStructs

    package init(pluginID: String, instance: Int, entitlements: Set<Entitlement>, permissions: Set<Permission> = [],
                 dataFolder: String? = nil, settings: String = "{}", freewheeling: Bool = false, logger: Logger, loopThread: ThreadIdentity, callbacks: CallbackRequests, actions: HostActions) {
        self.pluginID = pluginID
        self.instance = instance
        self.entitlements = entitlements
        self.permissions = permissions
        self.dataFolder = dataFolder
        dataFolderText = dataFolder.map(CStringBox.init)
        self.settings = settings
        settingsText = CStringBox(settings)
        isFreewheeling = freewheeling
        self.logger = logger
        self.loopThread = loopThread
        self.callbacks = callbacks
        self.actions = actions
        structs = HostStructs()
        structs.fill(context: Unmanaged.passUnretained(self).toOpaque())
    }

    package var raw: UnsafePointer<deck_host_t> { UnsafePointer(structs.host) }

    var currentPhase: Phase { Phase(rawValue: phase.load(ordering: .acquiring)) ?? .destroyed }

    /// Records why a host call failed, for `last_error`, and returns the status to hand back.
    /// [loop-thread]
    func fail(_ status: DeckStatus, _ message: String) -> deck_status_t {
        lastErrorText.withLock { $0 = CStringBox(message) }
        logger.debug(pluginID, "host call refused: \(message)")
        return status.rawValue
    }

    /// Records a refusal made on a thread other than the loop thread, for that thread's
    /// `last_error`; its text is built from static names only, so the strings kept stay few.
    func failOffLoop(_ status: DeckStatus, _ call: StaticString, _ reason: StaticString) -> deck_status_t {
        let refusal = PluginHost.offLoopRefusal("\(call)\(reason)")
        offLoopErrorText.withLock { $0 = refusal }
        logger.debug(pluginID, "host call refused: \(refusal.string)")
        return status.rawValue
    }

    /// Every off-loop refusal text ever made, kept for the life of the process.
    private static let offLoopRefusals = Mutex<[String: CStringBox]>([:])

    private static func offLoopRefusal(_ message: String) -> CStringBox {
        offLoopRefusals.withLock { refusals in
            if let kept = refusals[message] { return kept }
            let box = CStringBox(message)
            refusals[message] = box
            return box
        }
    }

    var lastErrorMessage: String { lastErrorText.withLock { $0.string } }

    var lastLoggedError: String { lastLoggedErrorText.withLock { $0 } }

    func log(_ level: LogLevel, _ raw: UnsafePointer<CChar>) {
        guard level <= logger.level else { return }  // errors always pass: they are quoted in failures
        log(level, text: PluginLogLine(raw).text)
    }

    /// Logs a line the plugin wrote (in this process, or `forwarded` from its host process), within
    /// its budget; escaped here already, since the last error is quoted in answers a terminal may print.
    package func log(_ level: LogLevel, text: String, forwarded: Bool = false) {
        let message = PrintableText.escaping(text)
        if level == .error { lastLoggedErrorText.withLock { $0 = message } }
        let now = UInt64(MonotonicClock.milliseconds)
        switch forwarded ? forwardedLogBudget.withLock({ $0.admit(now: now) }) : logBudget.withLock({ $0.admit(now: now) }) {
        case .log(let suppressed):
            logger.log(level, pluginID, plugin: pluginID, suppressed > 0 ? "(\(suppressed) line\(suppressed == 1 ? "" : "s") suppressed) \(message)" : message)
        case .suppress(let first):
            if first { logger.warning(pluginID, plugin: pluginID, "logging faster than \(Int(PluginLogBudget.perSecond)) lines a second; lines are suppressed") }
        }
    }

    /// Queues one `on_callback` for the loop; requests made before it is delivered coalesce.
    package func requestCallback() {
        if !callbackPending.exchange(true, ordering: .acquiringAndReleasing) { callbacks.request(instance: instance) }
    }

    var dataFolderPointer: UnsafePointer<CChar>? { dataFolderText.map { UnsafePointer($0.pointer) } }
    var settingsPointer: UnsafePointer<CChar> { UnsafePointer(settingsText.pointer) }

    var lastErrorPointer: UnsafePointer<CChar> {
        if loopThread.isCurrent { return lastErrorText.withLock { UnsafePointer($0.pointer) } }
        return offLoopErrorText.withLock { UnsafePointer($0.pointer) }
    }

    /// Runs a [loop-thread] host call, refusing it from any other thread or after destroy. A call
    /// that succeeds clears `last_error` (unless it left a note, as a delayed focus grant does).
    /// A refusal on another thread is that thread's `last_error`; the loop thread's is untouched.
    func onLoop(_ call: StaticString, _ body: (PluginHost) -> PluginCallError?) -> deck_status_t {
        guard loopThread.isCurrent else {
            let (log, held) = wrongThreadCalls.withLock { $0.admit(now: UInt64(MonotonicClock.nanoseconds / 1_000_000)) }
            if log { logger.warning("plugins", "\(pluginID): refused \(call) from a thread other than the loop thread\(LogThrottle.suffix(held))") }
            return failOffLoop(.state, call, " must be called on the loop thread")
        }
        guard currentPhase != .destroyed else { return fail(.state, "\(call): the plugin is destroyed") }
        lastErrorText.withLock { if !$0.string.isEmpty { $0 = CStringBox("") } }
        if let error = body(self) { return fail(error.status, error.message) }
        return DeckStatus.ok.rawValue
    }

    static func from(_ host: UnsafePointer<deck_host_t>?) -> PluginHost? {
        guard let context = host?.pointee.host_data else { return nil }
        return Unmanaged<PluginHost>.fromOpaque(context).takeUnretainedValue()
    }
}
