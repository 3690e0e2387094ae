import DeckBase
import Glibc

/// One connection to deckd: a request out, its response back, notifications in between.
final class Session {
    let json: Bool
    /// The zone the connection is bound to (`--zone`); nil: the primary one.
    var zone: String?
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var nextID = 1
    /// True once deckd closed the connection.
    private(set) var isClosed = false
    /// How long a call waits for deckd to take the connection and answer (`--timeout`); 0: for ever.
    private let timeoutMilliseconds: Int

    init(path: String, json: Bool, timeoutMilliseconds: Int) throws(ClientError) {
        self.json = json
        self.timeoutMilliseconds = timeoutMilliseconds
        switch UnixSocket.connect(path, timeoutMilliseconds: timeoutMilliseconds) {
        case .success(let fd): self.fd = fd
        case .failure(let error): throw .cannotConnect(path, error.description)
        }
        // Another user may have planted a socket at the (shared /tmp) default path: talk only to
        // a deckd of our own user or root.
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .cannotConnect(path, "cannot learn who serves it: \(reason)")
        }
        guard credentials.uid == getuid() || credentials.uid == 0 || Session.ownsSafeFolder(of: path, uid: credentials.uid) else {
            close(fd)
            throw .untrusted(path, "it is served by uid \(credentials.uid) (pid \(credentials.pid)), not by you (uid \(getuid())) or root; "
                             + "refusing to talk to it. Remove it or pass --socket PATH")
        }
    }

    /// Whether the socket's folder belongs to `uid`, is writable by nobody else, and sits in a
    /// folder of root's that others cannot write (as the service's /run/deck): then only `uid` or
    /// root can have put the socket there.
    static func ownsSafeFolder(of path: String, uid: uid_t) -> Bool {
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let parent = folder.contains("/") ? String(folder[..<folder.lastIndex(of: "/")!]) : ".."
        var info = stat(), above = stat()
        guard lstat(folder.isEmpty ? "/" : folder, &info) == 0, stat(parent.isEmpty ? "/" : parent, &above) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFDIR && info.st_uid == uid && info.st_mode & 0o022 == 0
            && above.st_uid == 0 && above.st_mode & 0o022 == 0
    }

    deinit { close(fd) }

    /// Calls `method` with `params` (JSON text) and returns the result, or throws its error.
    func call(_ method: String, _ params: String? = nil) throws(ClientError) -> JSONDocument.Result {
        let id = nextID
        nextID += 1
        let request = "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\(JSONDocument.quote(method))" + (params.map { ",\"params\":\($0)" } ?? "") + "}\n"
        if let params {
            do throws(JSONParseError) { _ = try JSONValue.parse(params, limits: JSONDocument.limits) } catch {
                throw .usage(error.kind == .unrepresentable ? "params hold a value Deck cannot hold: \(error)" : "params are not valid JSON (\(error)): \(params)")
            }
        }
        let sent = request.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
        if sent != request.utf8.count {
            if sent < 0 && errno == EAGAIN { throw notAnswered(method) }  // its socket buffer full for the whole timeout
            let reason = String(cString: strerror(errno))
            // deckd says why it turns a connection away (too many open) before it closes it.
            while let line = try? readLine(timeoutMilliseconds: 100), let said = JSONDocument(line) {
                if let refusal = Session.connectionError(said) { throw refusal }
            }
            throw .runtime("the connection to deckd broke: \(reason)")
        }
        let deadline = MonotonicClock.milliseconds + timeoutMilliseconds
        while true {
            let left = timeoutMilliseconds == 0 ? -1 : Int32(clamping: max(0, deadline - MonotonicClock.milliseconds))
            guard let line = try readLine(timeoutMilliseconds: left) else {
                throw isClosed ? .runtime("deckd closed the connection") : notAnswered(method)
            }
            guard let response = JSONDocument(line) else { throw .runtime("deckd sent something that is not JSON") }
            if let refusal = Session.connectionError(response) { throw refusal }
            guard response.value["id"].int == id else { continue }  // a notification
            let error = response.value["error"]
            if error.exists { throw .runtime("\(error["code"].display) \(error["message"].display)") }
            return JSONDocument.Result(document: response)
        }
    }

    private func notAnswered(_ method: String) -> ClientError {
        let seconds = timeoutMilliseconds % 1000 == 0 ? "\(timeoutMilliseconds / 1000)" : "\(Double(timeoutMilliseconds) / 1000)"
        return .runtime("deckd did not answer \(method) within \(seconds) s: is it stopped or stuck? (--timeout SECONDS waits longer, 0 for ever)")
    }

    /// The error of a response without an id: one about the connection (turned away, a line
    /// deckd could not read), not about a request.
    private static func connectionError(_ response: JSONDocument) -> ClientError? {
        let error = response.value["error"]
        guard error.exists, response.value["id"].int == nil else { return nil }
        return .runtime("\(error["code"].display) \(error["message"].display)")
    }

    /// Calls `method` and prints its result: raw JSON with --json, else through `human`.
    func show(_ method: String, _ params: String? = nil, human: (JSONDocument.Value) -> Void) throws(ClientError) {
        let result = try call(method, params)
        if json { print(result.value.text(pretty: false)) } else { human(result.value) }
    }

    /// The next line from deckd, or nil when it closes the connection or, with a timeout (ms, -1
    /// for none), when nothing came in time. `following`: a reader of standard output that goes
    /// away meanwhile (`deckctl events | head -n 1`) ends the wait, as `tail -f` ends, rather than
    /// the write of a line that may never come.
    func readLine(timeoutMilliseconds: Int32 = -1, following: Bool = false) throws(ClientError) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if timeoutMilliseconds >= 0 || following {
                // Standard output is watched for nothing but its errors: a pipe without a reader, a hung-up terminal.
                var pollers = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: 1, events: 0, revents: 0)]
                let ready = poll(&pollers, following ? 2 : 1, timeoutMilliseconds)
                if ready == 0 { return nil }
                if ready < 0 {
                    guard errno == EINTR else { throw .runtime("waiting for deckd failed: \(String(cString: strerror(errno)))") }
                    continue
                }
                if following, pollers[1].revents != 0 { try Session.outputGone() }
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 {
                isClosed = true
                return nil
            }
            guard count > 0 else { throw .runtime("reading from deckd failed: \(String(cString: strerror(errno)))") }
            buffer += chunk[..<count]
        }
    }
}

extension Session {
    /// Standard output's reader is gone: ends as the next line's write would, by SIGPIPE where it
    /// is not ignored, else naming the write's error.
    fileprivate static func outputGone() throws(ClientError) -> Never {
        var newline = UInt8(ascii: "\n")
        let reason = write(1, &newline, 1) < 0 ? String(cString: strerror(errno)) : "its reader hung up"
        throw .runtime("cannot write the output: \(reason)")
    }
}

/// Linux's `struct ucred` (pid, uid, gid), which Glibc's module hides behind _GNU_SOURCE.
private struct PeerCredentials {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
}

extension JSONDocument {
    /// A response's result, keeping its document alive.
    struct Result {
        let document: JSONDocument
        /// Where the value sits: a response's "result", a notification's "params".
        var key = "result"
        var value: Value { document.value[key] }
    }
}
