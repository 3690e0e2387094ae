import DeckBase
import Glibc

/// `http://HOST:PORT/PATH`: serves the live Ogg Opus stream to any number of clients. A client
/// joining late gets the header pages first, then pages from the next page boundary. Slow clients
/// are dropped, never the stream; other paths get 404 (a query string is ignored, as at Icecast),
/// malformed requests 400, and a request head over 8 KiB or slower than 5 s is cut off.
/// Loop-thread-confined.
public final class HTTPStreamSink: Sink {
    public struct Limits: Sendable, Equatable {
        /// Bytes a client may have queued before it counts as too slow and is dropped.
        public var maxQueuedBytes = 1 << 20
        public var maxHeadBytes = 8 * 1024
        public var headTimeoutMilliseconds: UInt64 = 5_000
        /// Listeners at once; more are answered 503. A car has a handful of receivers.
        public var maxClients = 32
        /// File descriptors kept free for the rest of the runtime (the control socket above all):
        /// a listener that would eat into them is answered 503.
        public var reservedDescriptors = 32
        /// Whether a client's sink (`sinks.add`) may listen beyond loopback, which serves the car's
        /// audio to anyone on the network; the integrator's own sinks may always.
        public var allowRemoteListeners = false

        public init() {}
    }

    public private(set) var uri: String
    private let path: String
    private let server: StreamServer
    private let context: SinkContext
    private var clients: [ObjectIdentifier: HTTPClient] = [:]
    private var muxer: OggOpusMuxer?
    private var statusCounters = SinkStatus()
    private var acceptErrors = LogThrottle()
    private var rejections = LogThrottle()

    init(host: String, port: Int, path: String, context: SinkContext) throws(SinkError) {
        let requested = SinkURI.http(host: host, port: port, path: path).description
        self.path = path
        self.context = context
        do {
            server = try StreamServer(loop: context.loop, address: .tcp(SocketAddress(host: host, port: port)))
        } catch {
            throw .cannotOpen(requested, error.description)
        }
        uri = requested
        do {
            try server.listen { [weak self] connection in self?.accept(connection) }
            server.onAcceptError = { [weak self] error in
                guard let self else { return }
                let (log, held) = acceptErrors.admit(now: context.loop.now)
                if log { context.logger.error("sinks", event: .sinkFailed, "\(uri): \(error); a listener was turned away\(LogThrottle.suffix(held))") }
            }
        } catch {
            server.close()
            throw .cannotOpen(requested, error.description)
        }
        if let bound = server.localAddress { uri = SinkURI.http(host: bound.host, port: bound.port, path: path).description }
        statusCounters.clients = 0
        statusCounters.droppedClients = 0
    }

    public var status: SinkStatus {
        var status = statusCounters
        status.clients = clients.values.filter(\.isStreaming).count
        return status
    }

    /// Its pages go out at most every 100 ms, so its packets may wait as long.
    public var batchMilliseconds: Int { OggOpusMuxer.flushMilliseconds }

    public func deliver(_ packet: EncodedPacket) {
        if muxer == nil {
            let muxer = OggOpusMuxer(preSkip: context.preSkip)
            self.muxer = muxer
            for client in clients.values where client.isStreaming { muxer.headerPages.forEach { send($0, to: client) } }
        }
        statusCounters.packets += 1
        statusCounters.finished = false
        for page in muxer?.pages(for: packet) ?? [] {
            for client in clients.values where client.isStreaming { send(page, to: client) }
        }
    }

    /// The stream ended: the next packet starts a new Ogg link (new serial, new headers) for the
    /// clients still connected, which Ogg players follow as a chained stream.
    public func finish() {
        muxer = nil
        statusCounters.finished = true
    }

    public func close() {
        clients.values.forEach { $0.close() }
        clients = [:]
        server.close()
    }

    private func accept(_ connection: StreamConnection) {
        let client = HTTPClient(connection: connection)
        let key = ObjectIdentifier(client)
        clients[key] = client
        if let reason = refusal(connection) { return reject(client, status: "503 Service Unavailable", reason: reason, now: true) }
        // At once, so a plugin cannot hold the listeners' places until its head times out.
        if let reason = pluginRefusal(connection) { return reject(client, status: "403 Forbidden", reason: reason, now: true) }
        client.timer = try? LoopTimer(loop: context.loop)
        let timeout = context.http.headTimeoutMilliseconds
        client.timer?.start(after: timeout) { [weak self, unowned client] in
            self?.reject(client, status: "408 Request Timeout", reason: "request head not received within \(timeout) ms")
        }
        connection.startReading { [weak self, unowned client] event in
            switch event {
            case .data(let bytes): self?.received(bytes, from: client)
            case .end, .failed: self?.forget(client)
            }
        }
    }

    /// Why one more listener cannot be served, or nil.
    private func refusal(_ connection: StreamConnection) -> String? {
        if clients.count > context.http.maxClients { return "\(context.http.maxClients) listeners already (http.maxClients)" }
        return connection.descriptorShortage(keeping: context.http.reservedDescriptors)
    }

    /// Why the runtime turns this listener on this machine away (a plugin's), or nil.
    private func pluginRefusal(_ connection: StreamConnection) -> String? {
        guard let local = connection.localAddress, let remote = connection.peerAddress, remote.isOnThisMachine(connectedTo: local) else {
            return nil
        }
        return context.listeners.refusal?(local, remote)
    }

    private func received(_ bytes: [UInt8], from client: HTTPClient) {
        guard !client.isStreaming, !client.isClosing else { return }  // streaming clients have nothing more to say
        client.head += bytes
        guard let length = HTTPRequestHead.headLength(in: client.head) else {
            if client.head.count > context.http.maxHeadBytes {
                reject(client, status: "431 Request Header Fields Too Large", reason: "request head over \(context.http.maxHeadBytes) bytes")
            }
            return
        }
        guard length <= context.http.maxHeadBytes else {
            return reject(client, status: "431 Request Header Fields Too Large", reason: "request head over \(context.http.maxHeadBytes) bytes")
        }
        guard let request = HTTPRequestHead.parse(client.head[..<length]) else {
            return reject(client, status: "400 Bad Request", reason: "malformed request")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return reject(client, status: "405 Method Not Allowed", reason: "\(request.method) \(request.target)", extra: "Allow: GET, HEAD\r\n")
        }
        // The query is not part of the mount, as at Icecast: players add their own (`?cache=…`);
        // escapes are decoded on both sides, as a player may send `/%C3%BC.opus` for `/ü.opus`.
        guard let asked = HTTPRequestHead.decoded(request.target.prefix { $0 != "?" }), asked == HTTPRequestHead.decoded(path[...]) else {
            return reject(client, status: "404 Not Found", reason: "\(request.method) \(request.target)", headOnly: request.method == "HEAD")
        }
        client.timer?.close()
        let head = "HTTP/1.1 200 OK\r\nContent-Type: audio/ogg\r\nCache-Control: no-cache, no-store\r\n"
            + "Connection: close\r\nServer: Deck/\(DeckVersion.string)\r\n\r\n"
        if request.method == "HEAD" {
            client.isClosing = true
            client.connection.write(Array(head.utf8)) { [weak self] _ in self?.forget(client) }
            return
        }
        client.isStreaming = true
        client.connection.write(Array(head.utf8))
        muxer?.headerPages.forEach { send($0, to: client) }
        context.logger.info("sinks", "\(uri): client connected (\(status.clients ?? 0) listening)")
    }

    private func send(_ page: [UInt8], to client: HTTPClient) {
        client.connection.write(page)
        statusCounters.bytes += page.count
        if client.connection.pendingWriteBytes > context.http.maxQueuedBytes {
            statusCounters.droppedClients = (statusCounters.droppedClients ?? 0) + 1
            context.logger.warning("sinks", "\(uri): dropped a client that is not reading (over \(context.http.maxQueuedBytes) bytes queued)")
            forget(client)
        }
    }

    /// Answers `status` and closes. A client's mistake (404, 405, 400…) or a full house (503) is
    /// logged, once per burst, but is not an error of the sink. `now` answers with what the kernel
    /// takes at once and closes in the same turn (a full house must not hold descriptors). The
    /// answer to a HEAD has the GET's headers and no content (RFC 9110 9.3.2).
    private func reject(_ client: HTTPClient, status: String, reason: String, extra: String = "", now: Bool = false, headOnly: Bool = false) {
        guard !client.isClosing else { return }
        client.isClosing = true
        client.timer?.close()
        let (log, held) = rejections.admit(now: context.loop.now)
        if log { context.logger.warning("sinks", "\(uri): answered \(status): \(reason)\(LogThrottle.suffix(held))") }
        let body = status + "\n"
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
            + extra + "Connection: close\r\n\r\n" + (headOnly ? "" : body)
        client.connection.stopReading()
        if now {
            client.connection.writeNow(Array(response.utf8))
            return forget(client)
        }
        client.connection.write(Array(response.utf8)) { [weak self] _ in self?.forget(client) }
    }

    private func forget(_ client: HTTPClient) {
        client.close()
        clients[ObjectIdentifier(client)] = nil
    }
}

/// One HTTP connection to the stream sink. Loop-thread-confined.
final class HTTPClient {
    let connection: StreamConnection
    var head: [UInt8] = []
    var isStreaming = false
    var isClosing = false
    var timer: LoopTimer?

    init(connection: StreamConnection) { self.connection = connection }

    func close() {
        timer?.close()
        connection.close()
    }
}
