import DeckControl
import DeckRuntime
import Glibc

/// `deckd --simulator HOST:PORT`: a head unit in the browser, for plugin authors. Serves the page
/// (`GET /`), answers one JSON-RPC request POSTed to `/rpc` through the control socket's
/// dispatcher, and streams every notification as server-sent events on `/events`. Loopback only,
/// and like the control socket (0600) only for deckd's own user: the peer's uid comes from the
/// kernel's socket table and plugins' processes are refused; a request naming another site (Host,
/// Origin) or not sent as JSON is refused, so no web page can drive the car. Loop-thread-confined.
final class SimulatorServer {
    struct Limits {
        var maxConnections = 32
        /// Pages following events at once; one more is answered 503.
        var maxEventStreams = 8
        var maxHeadBytes = 8 * 1024
        var headTimeoutMilliseconds: UInt64 = 5_000
        /// Unsent bytes an event stream may have before it counts as not reading and is dropped.
        var maxQueuedBytes = 1 << 20
        /// A comment line on idle event streams, so proxies and the browser keep them open.
        var keepAliveMilliseconds: UInt64 = 15_000
    }

    private let loop: EventLoop
    private let server: StreamServer
    private let page: SimulatorPage
    private let dispatcher: RPCDispatcher
    private let events: EventHub
    private let logger: Logger
    private let limits: Limits
    private let maxBodyBytes: Int
    private let pluginProcesses: () -> PluginProcesses
    private var connections: [ObjectIdentifier: Connection] = [:]
    private var refusals = LogThrottle()
    private let keepAlive: LoopTimer
    /// The host:port spellings a request's Host may use (the bound port under each loopback name).
    private let hosts: Set<String>
    let address: SocketAddress

    /// One HTTP connection: a request, then closed, or an event stream that stays.
    private final class Connection {
        let stream: StreamConnection
        var received: [UInt8] = []
        var timer: LoopTimer?
        /// Set once the connection follows events.
        var events: RPCConnection?
        var isAnswered = false
        /// Set while its request runs (a remote command is answered when its app answers).
        var isCalling = false
        /// Set for a HEAD request: its answer has the GET's headers and no content (RFC 9110 9.3.2).
        var isHead = false

        init(stream: StreamConnection) { self.stream = stream }

        func close() {
            timer?.close()
            stream.close()
        }
    }

    init(address requested: SocketAddress, page: SimulatorPage, loop: EventLoop, dispatcher: RPCDispatcher, events: EventHub,
         logger: Logger, maxBodyBytes: Int, pluginProcesses: @escaping () -> PluginProcesses, limits: Limits = Limits()) throws(SimulatorError) {
        guard requested.isLoopback else { throw .notLoopback(requested.description) }
        self.loop = loop
        self.page = page
        self.dispatcher = dispatcher
        self.events = events
        self.logger = logger
        self.limits = limits
        self.maxBodyBytes = maxBodyBytes
        self.pluginProcesses = pluginProcesses
        do {
            keepAlive = try LoopTimer(loop: loop)
            server = try StreamServer(loop: loop, address: .tcp(requested))
        } catch {
            throw .cannotListen(requested.description, error.description)
        }
        address = server.localAddress ?? requested
        hosts = ["127.0.0.1:\(address.port)", "localhost:\(address.port)", "[::1]:\(address.port)", address.description]
        do {
            try server.listen { [weak self] stream in self?.accept(stream) }
        } catch {
            server.close()
            keepAlive.close()
            throw .cannotListen(requested.description, error.description)
        }
        server.onAcceptError = { [weak self] error in self?.refused("accept failed: \(error)") }
        keepAlive.start(after: limits.keepAliveMilliseconds, repeat: limits.keepAliveMilliseconds) { [weak self] in
            guard let self else { return }
            for connection in connections.values where connection.events != nil { send(Array(": keep-alive\n\n".utf8), to: connection) }
        }
    }

    var url: String { "http://\(address)/" }

    func close() {
        for connection in connections.values { drop(connection) }
        server.close()
        keepAlive.close()
    }

    private func accept(_ stream: StreamConnection) {
        let connection = Connection(stream: stream)
        if let reason = refusal(stream) {
            refused(reason)
            stream.writeNow(SimulatorServer.response(status: "403 Forbidden", type: "text/plain", body: Array("\(reason)\n".utf8)))
            stream.close()
            return
        }
        if connections.count >= limits.maxConnections {
            refused("\(limits.maxConnections) connections already open")
            stream.writeNow(SimulatorServer.response(status: "503 Service Unavailable", type: "text/plain", body: Array("busy\n".utf8)))
            stream.close()
            return
        }
        connections[ObjectIdentifier(connection)] = connection
        connection.timer = try? LoopTimer(loop: loop)
        connection.timer?.start(after: limits.headTimeoutMilliseconds) { [weak self, unowned connection] in
            self?.answer(connection, status: "408 Request Timeout", text: "request not received within \(self?.limits.headTimeoutMilliseconds ?? 0) ms")
        }
        stream.startReading { [weak self, unowned connection] event in
            guard let self else { return }
            switch event {
            case .data(let bytes): received(bytes, on: connection)
            case .end, .failed: drop(connection)
            }
        }
    }

    /// Why this peer may not use the simulator: another user's, or a plugin's; nil for deckd's user.
    private func refusal(_ stream: StreamConnection) -> String? {
        guard let local = stream.localAddress, let remote = stream.peerAddress else { return "not a TCP connection" }
        guard let socket = LoopbackPeer.socket(local: local, peer: remote) else { return "\(remote) is not on this machine" }
        if let owner = pluginProcesses().owner(local: local, remote: remote) { return owner + PluginProcesses.throughTheHost }
        guard socket.uid == geteuid() else { return "\(remote) belongs to uid \(socket.uid); the simulator serves uid \(geteuid()) only" }
        return nil
    }

    private func received(_ bytes: [UInt8], on connection: Connection) {
        guard connection.events == nil, !connection.isAnswered, !connection.isCalling else { return }  // an event stream has nothing more to say
        connection.received += bytes
        guard let headLength = HTTPRequestHead.headLength(in: connection.received) else {
            if connection.received.count > limits.maxHeadBytes { answer(connection, status: "431 Request Header Fields Too Large", text: "request head over \(limits.maxHeadBytes) bytes") }
            return
        }
        guard headLength <= limits.maxHeadBytes else {
            return answer(connection, status: "431 Request Header Fields Too Large", text: "request head over \(limits.maxHeadBytes) bytes")
        }
        guard let request = HTTPRequestHead.parse(connection.received[..<headLength]) else {
            return answer(connection, status: "400 Bad Request", text: "malformed request")
        }
        connection.isHead = request.method == "HEAD"
        let header = { (name: String) in request.headers.first { $0.name.lowercased() == name }?.value }
        // One of each, or which one a proxy in front would have read is anyone's guess (request smuggling).
        if let twice = ["host", "content-length", "content-type", "origin", "transfer-encoding"].first(where: { name in
            request.headers.count { $0.name.lowercased() == name } > 1
        }) {
            return answer(connection, status: "400 Bad Request", text: "the \(twice) header is given more than once")
        }
        guard let host = header("host"), hosts.contains(host.lowercased()) else {
            return answer(connection, status: "421 Misdirected Request", text: "Host must be \(address) (the simulator serves this machine only)")
        }
        if let origin = header("origin"), origin != "http://\(host)" {
            return answer(connection, status: "403 Forbidden", text: "a page from \(origin) may not drive the simulator")
        }
        switch (request.method, request.target) {
        case ("GET", "/events"):
            startEvents(on: connection)
        case ("HEAD", "/events"):
            finish(connection, with: Array(SimulatorServer.eventStreamHead.utf8))
        case ("GET", _), ("HEAD", _):
            guard let file = page.file(request.target) else { return answer(connection, status: "404 Not Found", text: "no \(request.target)") }
            answer(connection, status: "200 OK", type: file.type, body: file.bytes)
        case ("POST", "/rpc"):
            guard header("content-type")?.lowercased().hasPrefix("application/json") == true else {
                return answer(connection, status: "415 Unsupported Media Type", text: "POST /rpc takes Content-Type: application/json")
            }
            guard header("transfer-encoding") == nil else {
                return answer(connection, status: "411 Length Required", text: "POST /rpc takes a Content-Length, not a Transfer-Encoding")
            }
            guard let lengthText = header("content-length") else {
                return answer(connection, status: "411 Length Required", text: "POST /rpc needs a Content-Length")
            }
            guard !lengthText.isEmpty, lengthText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                return answer(connection, status: "400 Bad Request", text: "Content-Length must be a whole number of bytes")
            }
            let length = Int(lengthText) ?? Int.max  // digits past Int's range: over any limit
            guard length <= maxBodyBytes else {
                return answer(connection, status: "413 Content Too Large", text: "a request over \(maxBodyBytes) bytes (control.maxMessageBytes)")
            }
            guard connection.received.count >= headLength + length else { return }  // the rest of the body is on its way
            call(Array(connection.received[headLength..<(headLength + length)]), on: connection)
        case (_, "/rpc"):
            answer(connection, status: "405 Method Not Allowed", text: "\(request.method) /rpc: use POST", extra: "Allow: POST\r\n")
        default:
            answer(connection, status: "405 Method Not Allowed", text: "\(request.method) \(request.target)", extra: "Allow: GET, HEAD\r\n")
        }
    }

    /// Runs one JSON-RPC request (with an id: its answer is the response) through the dispatcher.
    private func call(_ body: [UInt8], on connection: Connection) {
        connection.timer?.stop()
        guard case .object(let members)? = try? JSONValue.parseMarkingUnrepresentable(body, limits: dispatcher.limits.json), members["id"] != nil else {
            return answer(connection, status: "400 Bad Request", text: "POST one JSON-RPC request object with an id")
        }
        // Focus requested through it ends with it, as for a socket client that hangs up.
        let rpc = RPCConnection(clientName: "simulator") { _ in }
        connection.isCalling = true
        dispatcher.handle(body, connection: rpc) { [weak self, weak connection] response in
            guard let self, let connection, connections[ObjectIdentifier(connection)] != nil else { return }
            answer(connection, status: "200 OK", type: "application/json", body: Array(response.utf8))
        }
    }

    /// The connection becomes a server-sent event stream of every topic; each notification is
    /// one `data:` line holding the JSON-RPC notification, as the control socket sends it.
    private func startEvents(on connection: Connection) {
        let streams = connections.values.filter { $0.events != nil }.count
        guard streams < limits.maxEventStreams else {
            return answer(connection, status: "503 Service Unavailable", text: "\(limits.maxEventStreams) pages already follow events")
        }
        connection.timer?.close()
        connection.timer = nil
        let rpc = RPCConnection(clientName: "simulator") { [weak self, weak connection] line in
            guard let self, let connection else { return }
            send(Array("data: \(line)\n\n".utf8), to: connection)
        }
        rpc.topics = Set(events.topics)
        connection.events = rpc
        connection.stream.write(Array((SimulatorServer.eventStreamHead + "retry: 1000\n\n").utf8))
        events.add(rpc)
    }

    private func send(_ bytes: [UInt8], to connection: Connection) {
        connection.stream.write(bytes)
        if connection.stream.pendingWriteBytes > limits.maxQueuedBytes {
            logger.warning("simulator", "dropped a page that does not read its events (over \(limits.maxQueuedBytes) bytes unsent)")
            drop(connection)
        }
    }

    private func answer(_ connection: Connection, status: String, text: String, extra: String = "") {
        if !status.hasPrefix("2") { refused("answered \(status): \(text)") }
        answer(connection, status: status, type: "text/plain; charset=utf-8", body: Array("\(text)\n".utf8), extra: extra)
    }

    /// Writes a whole response and closes once it is out.
    private func answer(_ connection: Connection, status: String, type: String, body: [UInt8], extra: String = "") {
        finish(connection, with: SimulatorServer.response(status: status, type: type, body: body, extra: extra, content: !connection.isHead))
    }

    /// Writes `bytes`, the last the connection gets, and closes once they are out.
    private func finish(_ connection: Connection, with bytes: [UInt8]) {
        guard !connection.isAnswered else { return }
        connection.isAnswered = true
        connection.timer?.close()
        connection.stream.stopReading()
        connection.stream.write(bytes) { [weak self, weak connection] _ in
            if let connection { self?.drop(connection) }
        }
    }

    /// The head of `/events`' answer: a stream without a length, ended by closing.
    private static let eventStreamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n"
        + "Server: Deck/\(DeckVersion.string)\r\n\r\n"

    private func drop(_ connection: Connection) {
        if let rpc = connection.events {
            events.remove(rpc)
            rpc.closed()
        }
        connection.close()
        connections[ObjectIdentifier(connection)] = nil
    }

    private func refused(_ reason: String) {
        let (log, held) = refusals.admit(now: loop.now)
        if log { logger.warning("simulator", "\(reason)\(LogThrottle.suffix(held))") }
    }

    /// The whole response; without `content`, its head alone, as a HEAD is answered.
    private static func response(status: String, type: String, body: [UInt8], extra: String = "", content: Bool = true) -> [UInt8] {
        let head = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\nCache-Control: no-store\r\n"
            + "X-Content-Type-Options: nosniff\r\n\(extra)Connection: close\r\nServer: Deck/\(DeckVersion.string)\r\n\r\n"
        return Array(head.utf8) + (content ? body : [])
    }
}

enum SimulatorError: Error, CustomStringConvertible {
    case notLoopback(String)
    case cannotListen(String, String)
    case noPage(String)

    var description: String {
        switch self {
        case .notLoopback(let address): "--simulator \(address) is not a loopback address; the simulator serves this machine only"
        case .cannotListen(let address, let reason): "cannot serve the simulator on \(address): \(reason)"
        case .noPage(let reason): "cannot serve the simulator: \(reason)"
        }
    }
}
