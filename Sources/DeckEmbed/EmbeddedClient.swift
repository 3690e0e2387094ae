import DeckRuntime

/// One handle of a runtime: the one `deck_runtime_create` returned, or a client's from
/// `deck_runtime_create_client`. Each has its own JSON-RPC connection (its subscriptions, the
/// integrator focus it requests, released when it goes), its own event and reply callbacks or
/// queue, and its own wakeup. The connection is touched only on the loop thread.
final class EmbeddedClient: @unchecked Sendable {  // Cross-thread state is `callbacks` (a lock) and `messages`; `connection` is loop-thread-confined.
    struct Callbacks {
        var event: Registered<EmbeddingAPI.EventFunction>?
        var reply: Registered<EmbeddingAPI.TaggedReplyFunction>?
        var wakeup: Registered<EmbeddingAPI.WakeupFunction>?
        /// Set when the handle is destroyed (or its runtime is): nothing more is delivered.
        var closed = false
    }

    let runtime: EmbeddedRuntime
    let name: String
    /// Whether this is the handle `deck_runtime_create` returned: destroying it ends the runtime.
    let isPrimary: Bool
    let callbacks = PosixMutex(Callbacks())
    /// Notifications and tagged answers kept while no callback takes them.
    let messages = MessageQueue()
    /// Loop thread.
    private(set) lazy var connection = RPCConnection(clientName: isPrimary ? nil : name) { [unowned self] line in notify(line) }
    /// One warning per burst of notifications dropped from a full queue. Loop thread.
    private var dropWarnings = LogThrottle()

    init(runtime: EmbeddedRuntime, name: String, isPrimary: Bool) {
        self.runtime = runtime
        self.name = name
        self.isPrimary = isPrimary
    }

    var isClosed: Bool { callbacks.withLock { $0.closed } }

    /// A notification the event hub sent this handle: to its event callback, or into its queue.
    private func notify(_ line: String) {
        let (event, wakeup, closed) = callbacks.withLock { ($0.event, $0.wakeup, $0.closed) }
        guard !closed else { return }
        if let event {
            line.withCString { event.function(event.user, $0) }
            return
        }
        if let dropped = messages.push(.init(tag: nil, line: line)) {
            let (log, held) = dropWarnings.admit(now: runtime.runtime.loop.now)
            if log {
                runtime.runtime.logger.warning("embedding", "\(name): the event queue is full (\(MessageQueue.capacity)): its oldest "
                                               + "notification was dropped (\(dropped) so far); call deck_runtime_wait_event more "
                                               + "often or set an event callback" + LogThrottle.suffix(held))
            }
        }
        wakeup.map { $0.function($0.user) }
    }

    /// The answer to a tagged call: to the reply callback, or into the queue.
    func replied(tag: UInt64, _ response: String) {
        let (reply, wakeup, closed) = callbacks.withLock { ($0.reply, $0.wakeup, $0.closed) }
        guard !closed else { return }
        if let reply {
            response.withCString { reply.function(reply.user, tag, $0) }
            return
        }
        _ = messages.push(.init(tag: tag, line: response))
        wakeup.map { $0.function($0.user) }
    }

    /// Stops every delivery at once; the connection itself closes on the loop thread (`close`).
    func markClosed() { callbacks.withLock { $0.closed = true } }

    /// Closes the connection on the loop thread: the focus it requested is released, its
    /// subscriptions end.
    func close() {
        markClosed()
        connection.closed()
        runtime.runtime.events.remove(connection)
    }
}
