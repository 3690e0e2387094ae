import CMalloc
import DeckRuntime
import Glibc

/// Newline-delimited JSON-RPC 2.0 on a Unix socket (mode 0600) and, optionally, TCP with a token.
/// Every client is bounded (`ControlLimits`): message size and depth, batch and answer size, unsent
/// bytes, and connections per transport, with TCP clients that have not logged in capped apart so
/// they cannot lock the owner out; failed logins slow down their source. A stale socket file is
/// replaced, a live one is not stolen. Loop-thread-confined.
final class ControlServer {
    /// An optional TCP listener and the token its clients must give to `auth.login`.
    struct TCPListener {
        var address: SocketAddress
        var token: String
    }

    let path: String
    private let loop: EventLoop
    private let server: StreamServer
    private var tcpServer: StreamServer?
    let dispatcher: RPCDispatcher
    private let events: EventHub
    private let logger: Logger
    private let limits: ControlLimits
    private var clients: [ObjectIdentifier: Client] = [:]
    private var acceptErrors = LogThrottle()
    private var refusals = LogThrottle()
    private var loginFailures: [String: LoginFailures] = [:]
    /// Trims the heap once after a burst of dropped clients (their writes are freed as they cancel).
    private let trimTimer: LoopTimer

    private final class Client {
        let stream: StreamConnection
        /// The TCP peer's host; nil on the Unix socket.
        let source: String?
        var rpc: RPCConnection!
        var framer: LineFramer
        /// Login timeout before `auth.login`, idle timeout after (TCP only).
        var timer: LoopTimer?
        /// Set while reading is paused because the client is behind on its answers.
        var stallTimer: LoopTimer?
        /// Set while the rest of what it sent waits for the next loop turn (its turn budget is spent).
        var turnTimer: LoopTimer?
        /// False once closed: what a callback checks before it acts (no look-up in `clients`).
        private(set) var isConnected = true

        init(stream: StreamConnection, source: String?, maxMessageBytes: Int) {
            self.stream = stream
            self.source = source
            framer = LineFramer(maxBytes: maxMessageBytes)
        }

        var isTCP: Bool { source != nil }

        func close() {
            isConnected = false
            timer?.close()
            stallTimer?.close()
            stallTimer = nil
            turnTimer?.close()
            turnTimer = nil
            stream.close()
        }
    }

    /// Failed logins from one source host: they delay its next connections, doubling up to 10 s.
    private struct LoginFailures {
        var count = 0
        var last: UInt64 = 0

        var delayMilliseconds: UInt64 { count == 0 ? 0 : min(10_000, 100 << UInt64(min(count - 1, 7))) }
    }

    /// What marks a plugin's process, as the runtime knows now; such a peer is refused.
    let pluginProcesses: () -> PluginProcesses

    init(path: String, tcp: TCPListener? = nil, loop: EventLoop, dispatcher: RPCDispatcher, events: EventHub, logger: Logger,
         limits: ControlLimits = ControlLimits(),
         pluginProcesses: @escaping () -> PluginProcesses = { PluginProcesses(uids: nil, cgroups: nil) }) throws(ControlServerError) {
        self.path = path
        self.pluginProcesses = pluginProcesses
        self.loop = loop
        self.dispatcher = dispatcher
        self.events = events
        self.logger = logger
        self.limits = limits
        dispatcher.limits = limits
        do { trimTimer = try LoopTimer(loop: loop) } catch { throw .cannotListen(path, error.description) }
        try ControlServer.checkSocketPath(path)
        try ControlServer.clearStaleSocket(path)
        let previous = umask(0o177)  // the socket is created 0600
        defer { umask(previous) }
        do {
            server = try StreamServer(loop: loop, address: .unix(path: path))
        } catch {
            throw .cannotListen(path, error.description)
        }
        do {
            try server.listen { [weak self] connection in self?.accept(connection) }
        } catch {
            server.close()
            throw .cannotListen(path, error.description)
        }
        server.onAcceptError = { [weak self] error in self?.acceptFailed(error, on: path) }
        chmod(path, 0o600)
        if let tcp {
            do {
                let listener = try StreamServer(loop: loop, address: .tcp(tcp.address))
                try listener.listen { [weak self] connection in self?.accept(connection, token: tcp.token) }
                listener.onAcceptError = { [weak self] error in self?.acceptFailed(error, on: tcp.address.description) }
                tcpServer = listener
            } catch {
                server.close()
                unlink(path)
                throw .cannotListen(tcp.address.description, error.description)
            }
        }
    }

    /// Where TCP clients connect, when enabled (the port is real even when 0 was asked for).
    var tcpAddress: SocketAddress? { tcpServer?.localAddress }

    /// Stops listening, disconnects everyone and removes the socket file.
    func close() {
        clients.values.forEach { events.remove($0.rpc); $0.close(); $0.rpc.closed() }
        clients = [:]
        server.close()
        tcpServer?.close()
        trimTimer.close()
        unlink(path)
    }

    private func acceptFailed(_ error: LoopError, on listener: String) {
        let (log, held) = acceptErrors.admit(now: loop.now)
        if log { logger.error("control", "\(listener): \(error); a client was turned away\(LogThrottle.suffix(held))") }
    }

    /// Descriptors kept free of clients: a plugin's restart, a sink, the state file need them.
    static let reservedDescriptors = 8

    /// Whether another client of this kind fits; the reason it does not, otherwise.
    private func refusal(_ stream: StreamConnection, tcp: Bool) -> String? {
        if let shortage = stream.descriptorShortage(keeping: ControlServer.reservedDescriptors) { return shortage }
        let open = clients.values.filter { $0.isTCP == tcp }
        if !tcp {
            return open.count >= limits.maxConnections ? "\(limits.maxConnections) local connections already open (control.maxConnections)" : nil
        }
        let waiting = open.filter { !$0.rpc.authenticated }.count
        if waiting >= limits.maxUnauthenticated {
            return "\(waiting) TCP connections are waiting to log in (control.maxUnauthenticated)"
        }
        if open.count - waiting >= limits.maxTCPConnections {
            return "\(limits.maxTCPConnections) TCP connections already open (control.maxTCPConnections)"
        }
        return nil
    }

    private func accept(_ stream: StreamConnection, token: String? = nil) {
        let source = token == nil ? nil : stream.peerAddress?.host ?? "unknown"
        if let reason = pluginPeer(stream) {
            stream.writeNow(Array((RPCDispatcher.errorLine(RPCError(code: -32005, message: "Unauthorized: \(reason)")) + "\n").utf8))
            stream.close()
            let (log, held) = refusals.admit(now: loop.now)
            if log { logger.warning("control", "refused a connection: \(reason)\(LogThrottle.suffix(held))") }
            return
        }
        if let reason = refusal(stream, tcp: source != nil) {
            stream.writeNow(Array((RPCDispatcher.errorLine(.overloaded(reason)) + "\n").utf8))
            stream.close()
            let (log, held) = refusals.admit(now: loop.now)
            if log { logger.warning("control", "refused a connection\(source.map { " from \($0)" } ?? ""): \(reason)\(LogThrottle.suffix(held))") }
            return
        }
        let client = Client(stream: stream, source: source, maxMessageBytes: limits.maxMessageBytes)
        client.rpc = RPCConnection(token: token) { [weak self, unowned client] line in self?.send(line, to: client) }
        clients[ObjectIdentifier(client)] = client
        events.add(client.rpc)
        guard let source else { return resumeReading(client) }
        // A source that failed to log in waits before it is heard, and the login clock starts after.
        var failures = loginFailures[source] ?? LoginFailures()
        if failures.count > 0 && loop.now > failures.last + 60_000 { failures = LoginFailures() }
        loginFailures[source] = failures.count == 0 ? nil : failures
        client.timer = try? LoopTimer(loop: loop)
        client.timer?.start(after: failures.delayMilliseconds) { [weak self, unowned client] in
            guard let self else { return }
            resumeReading(client)
            client.timer?.start(after: UInt64(limits.loginTimeoutMs)) { [weak self, unowned client] in
                guard let self, !client.rpc.authenticated else { return }
                logger.warning("control", "disconnected a TCP client from \(source) that did not log in within \(limits.loginTimeoutMs) ms")
                drop(client)
            }
        }
    }

    private func resumeReading(_ client: Client) {
        client.stream.startReading { [weak self, unowned client] event in
            guard let self else { return }
            switch event {
            case .data(let bytes): received(bytes, from: client)
            case .end, .failed: drop(client)
            }
        }
    }

    /// Answers every complete line in `bytes`; the answers go out in one write, before any
    /// notification the requests caused.
    private func received(_ bytes: [UInt8], from client: Client) {
        events.hold()
        defer { events.release() }
        var answers: [UInt8] = []
        let turnEnds = MonotonicClock.nanoseconds + limits.turnBudgetMs * 1_000_000
        var budgetSpent = false
        client.framer.feed(bytes) { piece in
            guard case .line(let line) = piece else {
                // Answered once; the rest of the line is skipped, the connection and the others go on.
                logger.warning("control", "a message over \(limits.maxMessageBytes) bytes was refused")
                answers += Array(RPCDispatcher.errorLine(.limit("message over \(limits.maxMessageBytes) bytes (control.maxMessageBytes)")).utf8) + [10]
                return true
            }
            let wasAuthenticated = client.rpc.authenticated
            dispatcher.handle(line, connection: client.rpc, appendingTo: &answers)
            guard client.isConnected else { return false }
            if !client.rpc.authenticated {
                send(answers, to: client)
                answers = []
                loginFailed(client)
                return false
            }
            if !wasAuthenticated { loggedIn(client) }
            if MonotonicClock.nanoseconds > turnEnds {
                budgetSpent = true
                return false
            }
            // A client behind on its answers is read no further until it catches up: its
            // requests wait, unanswered but not lost, rather than piling up answers.
            return answers.count + client.stream.pendingWriteBytes <= limits.maxQueuedBytes / 2
        }
        send(answers, to: client, now: !client.framer.isHolding)
        if budgetSpent && client.isConnected { continueNextTurn(client) }
        if client.isTCP && client.rpc.authenticated && limits.idleTimeoutMs > 0 { restartIdleTimer(client) }
    }

    /// The client spent its share of this loop turn: its reading pauses and what it sent waits for
    /// the next turn, when every other ready client, plugin and sink has had its own.
    private func continueNextTurn(_ client: Client) {
        guard client.turnTimer == nil, let timer = try? LoopTimer(loop: loop) else { return }
        client.stream.stopReading()
        client.turnTimer = timer
        // One millisecond, not zero: a zero timer started from a timer would run in the same
        // phase, before the other clients' reads are polled.
        timer.start(after: 1) { [weak self, unowned client] in
            guard let self, client.isConnected else { return }
            client.turnTimer?.close()
            client.turnTimer = nil
            received([], from: client)
            if client.turnTimer == nil && client.stallTimer == nil && client.isConnected { resumeReading(client) }
        }
    }

    /// A TCP client's first request must log it in; anything else ends the connection and slows
    /// the source's next attempts. Failures are logged at the 1st, 10th, 100th… from a source.
    private func loginFailed(_ client: Client) {
        let source = client.source ?? "unknown"
        var failures = loginFailures[source] ?? LoginFailures()
        failures.count += 1
        failures.last = loop.now
        loginFailures[source] = failures
        var power = 1
        while power < failures.count { power *= 10 }
        if power == failures.count {
            logger.warning("control", "refused a TCP client from \(source) that did not log in first "
                           + "(\(failures.count) failed login(s) from it; its next connections wait \(failures.delayMilliseconds) ms)")
        }
        client.stream.stopReading()
        client.stream.write([]) { [weak self, weak client] _ in if let client { self?.drop(client) } }
    }

    private func loggedIn(_ client: Client) {
        client.timer?.stop()
        if let source = client.source { loginFailures[source] = nil }
        if limits.idleTimeoutMs > 0 { restartIdleTimer(client) }
    }

    private func restartIdleTimer(_ client: Client) {
        client.timer?.start(after: UInt64(limits.idleTimeoutMs)) { [weak self, unowned client] in
            guard let self else { return }
            logger.info("control", "disconnected a TCP client from \(client.source ?? "unknown") idle for \(limits.idleTimeoutMs) ms (control.idleTimeoutMs)")
            drop(client)
        }
    }

    private func send(_ line: String, to client: Client) { send(Array(line.utf8) + [10], to: client) }

    /// Queues `bytes`; a client over `maxQueuedBytes` unsent is cut off at once, and one over half
    /// of it is not read until it catches up (or is cut off after `stallTimeoutMs`).
    /// With `now`, when nothing is queued before them, the bytes the socket takes at once go
    /// straight to it: no queued write, no copy, no completion on a later turn. (Only for a read's
    /// answers with no request held back, which a completion would have to go on with.)
    private func send(_ bytes: [UInt8], to client: Client, now: Bool = false) {
        guard !bytes.isEmpty, client.isConnected else { return }
        var bytes = bytes
        if now && client.stream.pendingWriteBytes == 0 && client.stallTimer == nil {
            let written = client.stream.writeNow(bytes)
            if written == bytes.count { return }
            bytes.removeFirst(written)
        }
        let resumeBelow = limits.maxQueuedBytes / 4
        client.stream.write(bytes) { [weak self, weak client] _ in
            guard let self, let client, client.isConnected, client.stream.pendingWriteBytes < resumeBelow else { return }
            if client.stallTimer != nil {
                client.stallTimer?.close()  // caught up: read its requests again
                client.stallTimer = nil
                resumeReading(client)
            }
            if client.framer.isHolding { received([], from: client) }  // and answer those that waited
        }
        let pending = client.stream.pendingWriteBytes
        if pending > limits.maxQueuedBytes {
            logger.warning("control", "disconnected a client that does not read what it is sent "
                           + "(\(pending) bytes unsent, over control.maxQueuedBytes = \(limits.maxQueuedBytes))")
            drop(client)
            return
        }
        guard client.stallTimer == nil, pending > limits.maxQueuedBytes / 2 else { return }
        client.stream.stopReading()
        client.stallTimer = try? LoopTimer(loop: loop)
        client.stallTimer?.start(after: UInt64(limits.stallTimeoutMs)) { [weak self, unowned client] in
            guard let self else { return }
            logger.warning("control", "disconnected a client that does not read its answers "
                           + "(over \(limits.maxQueuedBytes / 2) bytes unsent for \(limits.stallTimeoutMs) ms)")
            drop(client)
        }
    }

    private func drop(_ client: Client) {
        let queued = client.stream.pendingWriteBytes
        events.remove(client.rpc)
        client.close()
        clients[ObjectIdentifier(client)] = nil
        client.rpc.closed()
        // A large queue was thousands of small writes: hand their pages back to the system now,
        // rather than keep the heap at its peak for ever.
        if queued > limits.maxQueuedBytes / 4 { trimTimer.start(after: 20) { malloc_trim(0) } }
    }

    /// Refuses a path the kernel would cut short or a folder that is not there, naming which.
    private static func checkSocketPath(_ path: String) throws(ControlServerError) {
        guard path.utf8.count <= UnixSocket.maxPathBytes else {
            throw .cannotListen(path, "the path is \(path.utf8.count) bytes; a Unix socket path must be under \(UnixSocket.maxPathBytes + 1) bytes")
        }
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        var info = stat()
        guard stat(folder.isEmpty ? "/" : folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .cannotListen(path, "the folder \(folder) does not exist")
        }
    }

    /// Removes a socket file no process answers on; refuses to touch one that answers.
    private static func clearStaleSocket(_ path: String) throws(ControlServerError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw .cannotListen(path, "a file that is not a socket is in the way") }
        if case .success(let fd) = UnixSocket.connect(path) {
            Glibc.close(fd)
            // In a shared folder (/tmp, the default without XDG_RUNTIME_DIR) it may be another user's program.
            throw info.st_uid == geteuid() ? .inUse(path) : .heldByAnotherUser(path, uid: info.st_uid)
        }
        unlink(path)
    }
}

enum ControlServerError: Error, CustomStringConvertible {
    case cannotListen(String, String)
    case inUse(String)
    case heldByAnotherUser(String, uid: uid_t)

    var description: String {
        switch self {
        case .cannotListen(let path, let reason): "cannot open the control socket \(path): \(reason)"
        case .inUse(let path): "another deckd is answering on \(path); stop it or pass --socket PATH"
        case .heldByAnotherUser(let path, let uid):
            "a program of uid \(uid), not yours (uid \(geteuid())), answers on \(path); pass --socket PATH in a folder of your own"
        }
    }
}
