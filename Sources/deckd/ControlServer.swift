import DeckRuntime
import Glibc

/// Newline-delimited JSON-RPC 2.0 on a Unix socket (mode 0600) and, optionally, TCP with a token:
/// bounded message size, nesting, connections and unsent bytes per client; a stale socket file is
/// replaced, a live one is not stolen; a TCP client must log in first and within the idle timeout.
/// Loop-thread-confined.
final class ControlServer {
    struct Limits {
        var maxMessageBytes = 1 << 20
        var maxDepth = 64
        var maxConnections = 64
        /// Past this many unsent response bytes a client's requests are not read until it catches up
        /// (pipelining stays bounded)…
        var maxPendingBytes = 1 << 20
        /// … and a client that reads none of them for this long is disconnected.
        var stallTimeoutMilliseconds: UInt64 = 5_000
        /// A TCP client that has not logged in by then is disconnected.
        var loginTimeoutMilliseconds: UInt64 = 10_000
    }

    /// An optional TCP listener and the token its clients must give to `auth.login`.
    struct TCPListener {
        var address: SocketAddress
        var token: String
    }

    let path: String
    private let loop: EventLoop
    private let server: StreamServer
    private var tcpServer: StreamServer?
    private let dispatcher: RPCDispatcher
    private let logger: Logger
    private let limits: Limits
    private var clients: [ObjectIdentifier: Client] = [:]

    private final class Client {
        let stream: StreamConnection
        var rpc: RPCConnection!
        var buffer: [UInt8] = []
        var discarding = false
        var loginTimer: LoopTimer?
        /// Set while reading is paused because the client is behind on its responses.
        var stallTimer: LoopTimer?

        init(stream: StreamConnection) { self.stream = stream }
    }

    init(path: String, tcp: TCPListener? = nil, loop: EventLoop, dispatcher: RPCDispatcher, logger: Logger,
         limits: Limits = Limits()) throws(ControlServerError) {
        self.path = path
        self.loop = loop
        self.dispatcher = dispatcher
        self.logger = logger
        self.limits = limits
        dispatcher.limits = JSONLimits(maxBytes: limits.maxMessageBytes, maxDepth: limits.maxDepth)
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
        chmod(path, 0o600)
        if let tcp {
            do {
                let listener = try StreamServer(loop: loop, address: .tcp(tcp.address))
                try listener.listen { [weak self] connection in self?.accept(connection, token: tcp.token) }
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

    /// Sends a notification to every client subscribed to `topic`.
    func publish(_ topic: String, _ params: JSONValue) {
        let line = RPCDispatcher.notification(topic, params)
        for client in clients.values where client.rpc.topics.contains(topic) { send(line, to: client) }
    }

    /// Stops listening, disconnects everyone and removes the socket file.
    func close() {
        clients.values.forEach { $0.stream.close(); $0.loginTimer?.close() }
        clients = [:]
        server.close()
        tcpServer?.close()
        unlink(path)
    }

    private func accept(_ stream: StreamConnection, token: String? = nil) {
        if clients.count >= limits.maxConnections {
            let error = RPCError.overloaded("\(limits.maxConnections) connections already open")
            stream.write(Array((RPCDispatcher.errorLine(error) + "\n").utf8)) { _ in stream.close() }
            logger.warning("control", "refused a connection: \(limits.maxConnections) already open")
            return
        }
        let client = Client(stream: stream)
        client.rpc = RPCConnection(token: token) { [weak self, unowned client] line in self?.send(line, to: client) }
        clients[ObjectIdentifier(client)] = client
        if token != nil {
            client.loginTimer = try? LoopTimer(loop: loop)
            client.loginTimer?.start(after: limits.loginTimeoutMilliseconds) { [weak self, unowned client] in
                guard let self, !client.rpc.authenticated else { return }
                logger.warning("control", "disconnected a TCP client that did not log in within \(limits.loginTimeoutMilliseconds) ms")
                drop(client)
            }
        }
        resumeReading(client)
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

    /// Answers every complete line in `bytes`; the answers go out in one write.
    private func received(_ bytes: [UInt8], from client: Client) {
        var answers: [UInt8] = []
        defer { if !answers.isEmpty { send(answers, to: client) } }
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            let piece = bytes[start..<index]
            start = index + 1
            if client.discarding {
                client.discarding = false
                continue
            }
            client.buffer += piece
            let line = client.buffer
            client.buffer = []
            if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
            if let response = dispatcher.handle(line, connection: client.rpc) { answers += Array(response.utf8) + [10] }
            guard clients[ObjectIdentifier(client)] != nil else { return }
            if !client.rpc.authenticated {
                if !answers.isEmpty { send(answers, to: client) }
                answers = []
                // A TCP client's first request must log it in; anything else ends the connection.
                logger.warning("control", "refused a TCP client that did not log in first")
                client.stream.stopReading()
                client.stream.write([]) { [weak self, weak client] _ in if let client { self?.drop(client) } }
                return
            }
            client.loginTimer?.close()
            client.loginTimer = nil
        }
        guard !client.discarding else { return }
        client.buffer += bytes[start...]
        if client.buffer.count > limits.maxMessageBytes {
            // Answer once, then skip the rest of this line; the connection and the others go on.
            client.buffer = []
            client.discarding = true
            logger.warning("control", "a message over \(limits.maxMessageBytes) bytes was refused")
            send(RPCDispatcher.errorLine(.limit("message over \(limits.maxMessageBytes) bytes")), to: client)
        }
    }

    private func send(_ line: String, to client: Client) { send(Array(line.utf8) + [10], to: client) }

    private func send(_ bytes: [UInt8], to client: Client) {
        client.stream.write(bytes) { [weak self, weak client] _ in
            guard let self, let client, client.stallTimer != nil, client.stream.pendingWriteBytes < limits.maxPendingBytes / 2 else { return }
            client.stallTimer?.close()  // caught up: read its requests again
            client.stallTimer = nil
            resumeReading(client)
        }
        guard client.stallTimer == nil, client.stream.pendingWriteBytes > limits.maxPendingBytes else { return }
        client.stream.stopReading()
        client.stallTimer = try? LoopTimer(loop: loop)
        client.stallTimer?.start(after: limits.stallTimeoutMilliseconds) { [weak self, unowned client] in
            guard let self else { return }
            logger.warning("control", "disconnected a client that does not read its responses "
                           + "(over \(limits.maxPendingBytes) bytes unsent for \(limits.stallTimeoutMilliseconds) ms)")
            drop(client)
        }
    }

    private func drop(_ client: Client) {
        client.loginTimer?.close()
        client.stallTimer?.close()
        client.stallTimer = nil
        client.stream.close()
        clients[ObjectIdentifier(client)] = nil
    }

    /// Removes a socket file no process answers on; refuses to touch one that answers.
    private static func clearStaleSocket(_ path: String) throws(ControlServerError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw .cannotListen(path, "a file that is not a socket is in the way") }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8).prefix($0.count - 1)) }
        let live = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
        if live { throw .inUse(path) }
        unlink(path)
    }

    /// `$XDG_RUNTIME_DIR/deck.sock`, else `/tmp/deck-$UID.sock`.
    static func defaultPath() -> String {
        if let dir = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !dir.isEmpty { return dir + "/deck.sock" }
        return "/tmp/deck-\(getuid()).sock"
    }
}

enum ControlServerError: Error, CustomStringConvertible {
    case cannotListen(String, String)
    case inUse(String)

    var description: String {
        switch self {
        case .cannotListen(let path, let reason): "cannot open the control socket \(path): \(reason)"
        case .inUse(let path): "another deckd is answering on \(path); stop it or pass --socket PATH"
        }
    }
}
