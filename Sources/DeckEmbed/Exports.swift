import DeckRuntime
import Glibc

// The C symbols of deck/runtime.h; each checks its handle and arguments, then hands over to
// EmbeddingAPI or EmbeddedRuntime.

private func fail(_ error: EmbeddingError, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil) -> Int32 {
    out?.pointee = strdup(error.message)
    return error.code.rawValue
}

/// Runs `body` with the live handle behind `rt`: 0 when it succeeds, the status of its error
/// otherwise: DECK_RUNTIME_E_INVALID for a NULL or foreign handle, E_STATE for a destroyed one.
private func withHandle(_ rt: OpaquePointer?, _ body: (EmbeddedRuntime) throws(EmbeddingError) -> Void) -> Int32 {
    do { try body(try EmbeddingAPI.lookup(rt)) } catch { return error.code.rawValue }
    return 0
}

private func text(_ pointer: UnsafePointer<CChar>?, _ name: String) throws(EmbeddingError) -> String {
    guard let pointer else { throw EmbeddingError(.invalid, "\(name) is NULL") }
    guard let value = String(validatingCString: pointer) else { throw EmbeddingError(.invalid, "\(name) is not UTF-8") }
    return value
}

@_cdecl("deck_runtime_api_version")
public func deck_runtime_api_version() -> UInt32 { EmbeddingAPI.major << 16 | EmbeddingAPI.minor }

@_cdecl("deck_runtime_version_string")
public func deck_runtime_version_string() -> UnsafePointer<CChar> { EmbeddingAPI.versionString }

@_cdecl("deck_runtime_status_string")
public func deck_runtime_status_string(_ status: Int32) -> UnsafePointer<CChar> {
    let text: StaticString = switch status {
    case 0: "ok"
    case -1: "invalid argument or handle"
    case -2: "not in this state"
    case -3: "the config was refused"
    case -4: "the system refused"
    case -5: "no answer in time"
    case -6: "too many calls wait for the runtime"
    default: "unknown status"
    }
    return UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("deck_runtime_free")
public func deck_runtime_free(_ text: UnsafeMutablePointer<CChar>?) { free(text) }

@_cdecl("deck_runtime_create")
public func deck_runtime_create(_ config: UnsafePointer<CChar>?,
                                _ reason: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> OpaquePointer? {
    reason?.pointee = nil
    do throws(EmbeddingError) {
        let json = try config.map { pointer throws(EmbeddingError) in try text(pointer, "config_json") }
        return try EmbeddingAPI.create(json)
    } catch {
        _ = fail(error, reason)
        return nil
    }
}

@_cdecl("deck_runtime_destroy")
public func deck_runtime_destroy(_ rt: OpaquePointer?) -> Int32 {
    do { try EmbeddingAPI.destroy(rt) } catch { return error.code.rawValue }
    return 0
}

@_cdecl("deck_runtime_start")
public func deck_runtime_start(_ rt: OpaquePointer?) -> Int32 {
    withHandle(rt) { embedded throws(EmbeddingError) in try EmbeddingAPI.start(embedded) }
}

@_cdecl("deck_runtime_set_wakeup")
public func deck_runtime_set_wakeup(_ rt: OpaquePointer?, _ wakeup: EmbeddingAPI.WakeupFunction?, _ user: UnsafeMutableRawPointer?) -> Int32 {
    do throws(EmbeddingError) {
        let client = try EmbeddingAPI.liveClient(rt)
        let embedded = client.runtime
        client.callbacks.withLock { $0.wakeup = wakeup.map { Registered(function: $0, user: user) } }
        // The first handle's wakeup also says when the loop has work, once the integrator drives it.
        guard client.isPrimary else { return 0 }
        guard let wakeup else {
            embedded.wakeups.stopCalling()
            return 0
        }
        guard embedded.shared.withLock({ $0.mode }) != .ownThread else { return 0 }
        guard embedded.wakeups.start(backend: embedded.runtime.loop.backendDescriptor, callback: wakeup, user: user) else {
            throw EmbeddingError(.internal, "cannot start the wakeup thread")
        }
    } catch {
        return error.code.rawValue
    }
    return 0
}

@_cdecl("deck_runtime_create_client")
public func deck_runtime_create_client(_ rt: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> OpaquePointer? {
    do throws(EmbeddingError) { return try EmbeddingAPI.createClient(rt, name: try text(name, "name")) } catch { return nil }
}

@_cdecl("deck_runtime_process")
public func deck_runtime_process(_ rt: OpaquePointer?) -> Int32 {
    withHandle(rt) { embedded throws(EmbeddingError) in try EmbeddingAPI.process(embedded) }
}

/// The live handle of a runtime the integrator's loop may drive (not mode 1, not destroyed).
private func integratorHandle(_ rt: OpaquePointer?) throws(EmbeddingError) -> EmbeddedRuntime {
    let embedded = try EmbeddingAPI.lookup(rt)
    switch embedded.shared.withLock({ $0.mode }) {
    case .ownThread: throw EmbeddingError(.state, "the runtime runs on its own thread (deck_runtime_start)")
    case .destroyed: throw EmbeddingError(.state, "the runtime is being destroyed")
    case .idle, .integratorLoop: return embedded
    }
}

@_cdecl("deck_runtime_backend_fd")
public func deck_runtime_backend_fd(_ rt: OpaquePointer?) -> Int32 {
    do { return try integratorHandle(rt).runtime.loop.backendDescriptor } catch { return error.code.rawValue }
}

@_cdecl("deck_runtime_backend_timeout")
public func deck_runtime_backend_timeout(_ rt: OpaquePointer?) -> Int32 {
    do {
        let embedded = try integratorHandle(rt)
        // Inside a callback the loop is this thread's already; the audio thread must not wait for it.
        if embedded.isDrivingThread { return embedded.runtime.loop.backendTimeout }
        if embedded.isAudioThread { return EmbeddingError.Code.state.rawValue }
        return embedded.drive { embedded.runtime.loop.backendTimeout }
    } catch {
        return error.code.rawValue
    }
}

/// Runs `body` with the live handle behind `rt` as a client: 0, or the status of its error.
private func withClient(_ rt: OpaquePointer?, _ body: (EmbeddedClient) throws(EmbeddingError) -> Void) -> Int32 {
    do { try body(try EmbeddingAPI.liveClient(rt)) } catch { return error.code.rawValue }
    return 0
}

@_cdecl("deck_runtime_call")
public func deck_runtime_call(_ rt: OpaquePointer?, _ request: UnsafePointer<CChar>?, _ reply: EmbeddingAPI.ReplyFunction?,
                              _ user: UnsafeMutableRawPointer?) -> Int32 {
    withClient(rt) { client throws(EmbeddingError) in
        try client.runtime.submit(EmbeddedRuntime.Job(client: client, request: try text(request, "request_json"), reply: reply, user: user))
    }
}

@_cdecl("deck_runtime_call_tagged")
public func deck_runtime_call_tagged(_ rt: OpaquePointer?, _ request: UnsafePointer<CChar>?, _ tag: UInt64) -> Int32 {
    withClient(rt) { client throws(EmbeddingError) in
        try client.runtime.submit(EmbeddedRuntime.Job(client: client, request: try text(request, "request_json"), tag: tag))
    }
}

@_cdecl("deck_runtime_set_reply_callback")
public func deck_runtime_set_reply_callback(_ rt: OpaquePointer?, _ reply: EmbeddingAPI.TaggedReplyFunction?,
                                            _ user: UnsafeMutableRawPointer?) -> Int32 {
    withClient(rt) { $0.callbacks.withLock { $0.reply = reply.map { Registered(function: $0, user: user) } } }
}

@_cdecl("deck_runtime_call_sync")
public func deck_runtime_call_sync(_ rt: OpaquePointer?, _ request: UnsafePointer<CChar>?,
                                   _ response: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ timeout: Int32) -> Int32 {
    response?.pointee = nil
    do throws(EmbeddingError) {
        let client = try EmbeddingAPI.liveClient(rt)
        let answer = try EmbeddingAPI.callSync(client, try text(request, "request_json"), timeoutMilliseconds: timeout > 0 ? Int(timeout) : 10_000)
        response?.pointee = answer.flatMap { strdup($0) }
    } catch {
        return fail(error, response)
    }
    return 0
}

@_cdecl("deck_runtime_set_event_callback")
public func deck_runtime_set_event_callback(_ rt: OpaquePointer?, _ event: EmbeddingAPI.EventFunction?, _ user: UnsafeMutableRawPointer?) -> Int32 {
    withClient(rt) { $0.callbacks.withLock { $0.event = event.map { Registered(function: $0, user: user) } } }
}

@_cdecl("deck_runtime_subscribe")
public func deck_runtime_subscribe(_ rt: OpaquePointer?, _ topic: UnsafePointer<CChar>?) -> Int32 {
    changeSubscription(rt, "events.subscribe", topic)
}

@_cdecl("deck_runtime_wait_event")
public func deck_runtime_wait_event(_ rt: OpaquePointer?, _ timeoutMs: Int32,
                                    _ event: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    event?.pointee = nil
    guard let event else { return EmbeddingError.Code.invalid.rawValue }
    return wait(rt, timeoutMs, eventsOnly: true) { event.pointee = strdup($0.line) }
}

/// The C layout of deck_runtime_message_t.
public struct DeckRuntimeMessage {
    /// 0 none, 1 a notification, 2 a tagged answer.
    public var kind: Int32 = 0
    public var replyTag: UInt64 = 0
    public var json: UnsafeMutablePointer<CChar>?
    var reserved: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    public init() {}

    init(kind: Int32, replyTag: UInt64, json: UnsafeMutablePointer<CChar>?) {
        self.kind = kind
        self.replyTag = replyTag
        self.json = json
    }
}

@_cdecl("deck_runtime_wait_message")
public func deck_runtime_wait_message(_ rt: OpaquePointer?, _ timeoutMs: Int32, _ message: UnsafeMutableRawPointer?) -> Int32 {
    guard let out = message?.assumingMemoryBound(to: DeckRuntimeMessage.self) else { return EmbeddingError.Code.invalid.rawValue }
    out.pointee = DeckRuntimeMessage()
    return wait(rt, timeoutMs, eventsOnly: false) { taken in
        out.pointee = DeckRuntimeMessage(kind: taken.tag == nil ? 1 : 2, replyTag: taken.tag ?? 0, json: strdup(taken.line))
    }
}

/// Takes the oldest message of a handle's queue into `take`, waiting up to `timeoutMs`:
/// DECK_RUNTIME_E_TIMEOUT when none came.
private func wait(_ rt: OpaquePointer?, _ timeoutMs: Int32, eventsOnly: Bool, _ take: (MessageQueue.Message) -> Void) -> Int32 {
    var taken = false
    let status = withClient(rt) { client throws(EmbeddingError) in
        guard (0...60_000).contains(timeoutMs) else { throw EmbeddingError(.invalid, "timeout_ms \(timeoutMs) is outside 0…60000") }
        // Waiting where messages are made would wait for itself.
        if timeoutMs > 0 && client.runtime.isCallbackThread {
            throw EmbeddingError(.state, "waiting on the thread that delivers the messages; pass timeout_ms 0 here")
        }
        guard let message = client.messages.pop(timeoutMilliseconds: Int(timeoutMs), eventsOnly: eventsOnly) else { return }
        take(message)
        taken = true
    }
    return status == 0 && !taken ? EmbeddingError.Code.timeout.rawValue : status
}

@_cdecl("deck_runtime_unsubscribe")
public func deck_runtime_unsubscribe(_ rt: OpaquePointer?, _ topic: UnsafePointer<CChar>?) -> Int32 {
    changeSubscription(rt, "events.unsubscribe", topic)
}

@_cdecl("deck_runtime_set_zone")
public func deck_runtime_set_zone(_ rt: OpaquePointer?, _ zone: UnsafePointer<CChar>?) -> Int32 {
    withClient(rt) { client throws(EmbeddingError) in
        var named = JSONValue.null
        if zone != nil {
            let id = try text(zone, "zone")
            let known = client.runtime.zoneIDs
            guard known.contains(id) else { throw EmbeddingError(.invalid, "unknown zone \(id) (zones: \(known.joined(separator: ", ")))") }
            named = .string(id)
        }
        let request = #"{"jsonrpc":"2.0","method":"zones.bind","params":{"zone":\#(named.encoded())}}"#
        try client.runtime.submit(EmbeddedRuntime.Job(client: client, request: request))
    }
}

/// `events.subscribe` or `events.unsubscribe` for one known topic, without the caller writing JSON.
private func changeSubscription(_ rt: OpaquePointer?, _ method: String, _ topic: UnsafePointer<CChar>?) -> Int32 {
    withClient(rt) { client throws(EmbeddingError) in
        let name = try text(topic, "topic")
        guard Runtime.eventTopics.contains(name) else {
            throw EmbeddingError(.invalid, "unknown topic \(name) (known: \(Runtime.eventTopics.joined(separator: ", ")))")
        }
        let request = #"{"jsonrpc":"2.0","method":"\#(method)","params":{"topics":[\#(JSONValue.string(name).encoded())]}}"#
        try client.runtime.submit(EmbeddedRuntime.Job(client: client, request: request))
    }
}

@_cdecl("deck_runtime_set_packet_callback")
public func deck_runtime_set_packet_callback(_ rt: OpaquePointer?, _ packet: EmbeddingAPI.PacketFunction?, _ user: UnsafeMutableRawPointer?) -> Int32 {
    withHandle(rt) { embedded in
        embedded.shared.withLock { $0.packet = packet.map { Registered(function: $0, user: user) } }
        embedded.packetCallbackChanged()
    }
}

@_cdecl("deck_runtime_set_audio_packet_callback")
public func deck_runtime_set_audio_packet_callback(_ rt: OpaquePointer?, _ packet: EmbeddingAPI.PacketFunction?, _ user: UnsafeMutableRawPointer?) -> Int32 {
    withHandle(rt) { embedded in embedded.runtime.audio.packetTap.set(packet, user: user, fromItsCall: embedded.isAudioThread) }
}

@_cdecl("deck_runtime_set_pcm_tap")
public func deck_runtime_set_pcm_tap(_ rt: OpaquePointer?, _ pcm: EmbeddingAPI.PCMFunction?, _ user: UnsafeMutableRawPointer?) -> Int32 {
    withHandle(rt) { embedded in
        let first = embedded.shared.withLock { state in
            defer { state.pcm = pcm.map { Registered(function: $0, user: user) } }
            return state.pcm == nil
        }
        // The tap itself is made on the loop thread, by a job.
        if first, pcm != nil { embedded.enablePCMTapSoon() }
    }
}

@_cdecl("deck_runtime_set_log_level")
public func deck_runtime_set_log_level(_ rt: OpaquePointer?, _ level: Int32) -> Int32 {
    withHandle(rt) { embedded throws(EmbeddingError) in
        guard let chosen = LogLevel(rawValue: Int(level)) else {
            throw EmbeddingError(.invalid, "log level \(level) is not one of 0 error, 1 warning, 2 info, 3 debug")
        }
        embedded.runtime.logger.level = chosen
    }
}

@_cdecl("deck_runtime_set_log_callback")
public func deck_runtime_set_log_callback(_ rt: OpaquePointer?, _ log: EmbeddingAPI.LogFunction?, _ user: UnsafeMutableRawPointer?) -> Int32 {
    withHandle(rt) { $0.logTarget.callback.withLock { $0 = log.map { Registered(function: $0, user: user) } } }
}
