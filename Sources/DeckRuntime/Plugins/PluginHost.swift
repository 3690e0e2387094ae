import CDeckPlugin
import Glibc
import Synchronization

/// The host side of the ABI for one plugin instance: the `deck_host_t` it is handed and the
/// state its callbacks read. Plugins call in from any thread, so every field is immutable,
/// atomic or locked.
final class PluginHost: Sendable {
    /// Lifecycle as seen from any thread (the loop thread's `PluginInstance` is the authority).
    enum Phase: Int { case loading, running, destroyed }

    let pluginID: String
    let instance: Int
    let entitlements: Set<Entitlement>
    let logger: Logger
    let loopThread: ThreadIdentity
    let callbacks: CallbackRequests
    let actions: HostActions
    let phase = Atomic<Int>(Phase.loading.rawValue)
    /// Set between a plugin's request and its delivery, so repeated requests coalesce.
    let callbackPending = Atomic<Bool>(false)
    private let lastErrorText = Mutex<CStringBox>(CStringBox(""))
    /// The last error the plugin logged, quoted when one of its own calls fails.
    private let lastLoggedErrorText = Mutex<String>("")
    private let logBudget = Mutex(PluginLogBudget())
    /// The C structs handed to the plugin; stable addresses until this host is freed.
    let structs: HostStructs

    init(pluginID: String, instance: Int, entitlements: Set<Entitlement>, logger: Logger,
         loopThread: ThreadIdentity, callbacks: CallbackRequests, actions: HostActions) {
        self.pluginID = pluginID
        self.instance = instance
        self.entitlements = entitlements
        self.logger = logger
        self.loopThread = loopThread
        self.callbacks = callbacks
        self.actions = actions
        structs = HostStructs()
        structs.fill(context: Unmanaged.passUnretained(self).toOpaque())
    }

    var raw: UnsafePointer<deck_host_t> { UnsafePointer(structs.host) }

    var currentPhase: Phase { Phase(rawValue: phase.load(ordering: .acquiring)) ?? .destroyed }

    /// Records why a host call failed, for `last_error`, and returns the status to hand back.
    func fail(_ status: DeckStatus, _ message: String) -> deck_status_t {
        lastErrorText.withLock { $0 = CStringBox(message) }
        logger.debug(pluginID, "host call refused: \(message)")
        return status.rawValue
    }

    var lastErrorMessage: String { lastErrorText.withLock { $0.string } }

    var lastLoggedError: String { lastLoggedErrorText.withLock { $0 } }

    fileprivate func log(_ level: LogLevel, _ raw: UnsafePointer<CChar>) {
        guard level <= logger.level else { return }  // errors always pass: they are quoted in failures
        let message = PluginLogLine(raw).text
        if level == .error { lastLoggedErrorText.withLock { $0 = message } }
        switch logBudget.withLock({ $0.admit(now: PluginLogBudget.nowMilliseconds()) }) {
        case .log(let suppressed):
            logger.log(level, pluginID, suppressed > 0 ? "(\(suppressed) lines suppressed) \(message)" : message)
        case .suppress(let first):
            if first { logger.warning(pluginID, "logging faster than \(Int(PluginLogBudget.perSecond)) lines a second; lines are suppressed") }
        }
    }

    fileprivate var lastErrorPointer: UnsafePointer<CChar> { lastErrorText.withLock { UnsafePointer($0.pointer) } }

    /// Runs a [loop-thread] host call, refusing it from any other thread or after destroy. A call
    /// that succeeds clears `last_error` (unless it left a note, as a delayed focus grant does).
    fileprivate func onLoop(_ call: String, _ body: (PluginHost) -> PluginCallError?) -> deck_status_t {
        guard loopThread.isCurrent else { return fail(.state, "\(call) must be called on the loop thread") }
        guard currentPhase != .destroyed else { return fail(.state, "\(call): the plugin is destroyed") }
        lastErrorText.withLock { if !$0.string.isEmpty { $0 = CStringBox("") } }
        if let error = body(self) { return fail(error.status, error.message) }
        return DeckStatus.ok.rawValue
    }

    fileprivate static func from(_ host: UnsafePointer<deck_host_t>?) -> PluginHost? {
        guard let context = host?.pointee.host_data else { return nil }
        return Unmanaged<PluginHost>.fromOpaque(context).takeUnretainedValue()
    }
}

/// A C string owned by Swift, freed with its box.
final class CStringBox: @unchecked Sendable {  // Immutable after init; only handed out as a read-only pointer.
    let string: String
    let pointer: UnsafeMutablePointer<CChar>

    init(_ string: String) {
        self.string = string
        pointer = strdup(string)
    }

    deinit { free(pointer) }
}

/// The `deck_host_t` and the host extensions for one plugin, at fixed addresses.
final class HostStructs: @unchecked Sendable {  // Written once in `fill` before the plugin sees them, then read-only.
    let host = UnsafeMutablePointer<deck_host_t>.allocate(capacity: 1)
    let threadCheck = UnsafeMutablePointer<deck_host_thread_check_t>.allocate(capacity: 1)
    let audio = UnsafeMutablePointer<deck_host_audio_t>.allocate(capacity: 1)
    let session = UnsafeMutablePointer<deck_host_session_t>.allocate(capacity: 1)
    private let name = CStringBox("Deck")
    private let version = CStringBox(DeckVersion.string)

    func fill(context: UnsafeMutableRawPointer) {
        host.initialize(to: deck_host_t())
        host.pointee.abi = deck_abi_version_t(major: PluginABI.major, minor: PluginABI.minor, patch: PluginABI.patch)
        host.pointee.host_data = context
        host.pointee.name = UnsafePointer(name.pointer)
        host.pointee.version = UnsafePointer(version.pointer)
        host.pointee.get_extension = { host, id in
            guard let owner = PluginHost.from(host), let id else { return nil }
            switch String(cString: id) {
            case DECK_EXT_THREAD_CHECK: return UnsafeRawPointer(owner.structs.threadCheck)
            case DECK_EXT_AUDIO: return UnsafeRawPointer(owner.structs.audio)
            case DECK_EXT_SESSION: return UnsafeRawPointer(owner.structs.session)
            default: return nil
            }
        }
        host.pointee.log = { host, level, message in
            guard let owner = PluginHost.from(host), let message else { return }
            owner.log(LogLevel(rawValue: Int(level.rawValue)) ?? .info, message)
        }
        host.pointee.last_error = { host in
            PluginHost.from(host)?.lastErrorPointer
        }
        host.pointee.request_callback = { host in
            guard let owner = PluginHost.from(host) else { return DeckStatus.invalid.rawValue }
            guard owner.currentPhase != .destroyed else {
                return owner.fail(.state, "request_callback: the plugin is destroyed")
            }
            if !owner.callbackPending.exchange(true, ordering: .acquiringAndReleasing) {
                owner.callbacks.request(instance: owner.instance)
            }
            return DeckStatus.ok.rawValue
        }
        host.pointee.has_entitlement = { host, category in
            guard let owner = PluginHost.from(host), let category,
                  let entitlement = Entitlement(rawValue: String(cString: category)) else { return false }
            return owner.entitlements.contains(entitlement)
        }
        threadCheck.initialize(to: deck_host_thread_check_t(
            is_loop_thread: { host in PluginHost.from(host)?.loopThread.isCurrent ?? false },
            is_audio_thread: { host in PluginHost.from(host)?.actions.audioThread.isCurrent ?? false }))
        audio.initialize(to: deck_host_audio_t())
        audio.pointee.open_stream = { host in
            PluginHost.from(host)?.onLoop("open_stream") { $0.actions.openStream($0.instance) } ?? DeckStatus.invalid.rawValue
        }
        audio.pointee.close_stream = { host in
            PluginHost.from(host)?.onLoop("close_stream") { $0.actions.closeStream($0.instance) } ?? DeckStatus.invalid.rawValue
        }
        session.initialize(to: deck_host_session_t())
        session.pointee.request_focus = { host, request, result in
            guard let owner = PluginHost.from(host) else { return DeckStatus.invalid.rawValue }
            return owner.onLoop("request_focus") { owner in
                guard let request, let result else { return PluginCallError(status: .invalid, message: "request_focus: NULL argument") }
                let name = request.pointee.context.map { String(cString: $0) } ?? ""
                guard let context = AudioContext(rawValue: name) else {
                    return PluginCallError(status: .invalid, message: "request_focus: unknown context \"\(name)\"; known: "
                                           + AudioContext.allCases.map(\.rawValue).joined(separator: ", "))
                }
                let types: [Int32: FocusRequestType] = [
                    Int32(DECK_FOCUS_GAIN.rawValue): .gain, Int32(DECK_FOCUS_GAIN_TRANSIENT.rawValue): .gainTransient,
                    Int32(DECK_FOCUS_GAIN_TRANSIENT_MAY_DUCK.rawValue): .gainTransientMayDuck,
                    Int32(DECK_FOCUS_GAIN_TRANSIENT_EXCLUSIVE.rawValue): .gainTransientExclusive,
                ]
                guard let type = types[request.pointee.type] else {
                    return PluginCallError(status: .invalid, message: "request_focus: unknown focus type \(request.pointee.type) "
                                           + "(DECK_FOCUS_GAIN 1 to DECK_FOCUS_GAIN_TRANSIENT_EXCLUSIVE 4)")
                }
                let flags = request.pointee.flags
                switch owner.actions.requestFocus(owner.instance, context, type, flags & DECK_FOCUS_FLAG_ACCEPTS_DELAYED != 0,
                                                  flags & DECK_FOCUS_FLAG_PAUSES_ON_DUCK != 0) {
                case .failure(let error): return error
                case .success(.granted): result.pointee = Int32(DECK_FOCUS_GRANTED.rawValue)
                case .success(.delayed(let reason)):
                    result.pointee = Int32(DECK_FOCUS_DELAYED.rawValue)
                    _ = owner.fail(.ok, "focus delayed: \(reason)")
                case .success(.rejected(let reason)):
                    result.pointee = Int32(DECK_FOCUS_REJECTED.rawValue)
                    _ = owner.fail(.ok, "focus rejected: \(reason)")
                }
                return nil
            }
        }
        session.pointee.abandon_focus = { host in
            PluginHost.from(host)?.onLoop("abandon_focus") { $0.actions.abandonFocus($0.instance) } ?? DeckStatus.invalid.rawValue
        }
    }

    deinit {
        host.deallocate()
        threadCheck.deallocate()
        audio.deallocate()
        session.deallocate()
    }
}
