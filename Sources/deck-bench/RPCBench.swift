import DeckRuntime
import Glibc
import Synchronization

/// JSON-RPC throughput and latency against a real deckd streaming in real time, with the
/// dispatcher alone (same requests, no socket) as the reference.
struct RPCBench {
    var options: BenchOptions
    let request = #"{"jsonrpc":"2.0","method":"runtime.info","id":1}"#

    func run() throws {
        print("## rpc (runtime.info; deckd playing Tone in real time into a file sink)\n")
        let work = try TemporaryFolder()
        let socketPath = work.path + "/deck.sock"
        let deckd = try Subprocess(options.bin + "/deckd", ["--plugins", options.bin + "/plugins", "--socket", socketPath,
                                                            "--play", "org.deck.tone:stereo-440-660",
                                                            "--sink", "file:\(work.path)/bench.opus", "--log-level", "warning", "--isolation", "inline"])
        defer { deckd.finish(signal: SIGTERM) }
        try RPCClient.waitForSocket(socketPath)

        let count = 100_000
        let dispatcherRate = dispatcherAlone(count: count)
        let pipelinedRate = try RPCBench.pipelined(socketPath, request: request, count: count)
        print("| pipelined on one connection | requests | requests/s | vs the dispatcher alone |")
        print("|---|---|---|---|")
        print("| dispatcher alone, in process (reference) | \(count) | \(Int(dispatcherRate)) | 1.00× |")
        print("| deckd over its Unix socket | \(count) | \(Int(pipelinedRate)) | \(String(format2: pipelinedRate / dispatcherRate))× |")
        print("\nGoal: at least 50,000 requests/s pipelined.\n")

        let before = try RPCClient.info(socketPath)
        let latencies = try fixedRate(socketPath, clients: 32, totalRate: 5_000, seconds: 5)
        let after = try RPCClient.info(socketPath)
        func ms(_ value: Double) -> String { String(format3: value * 1000) }
        let sorted = latencies.sorted()
        print("| 32 clients, 5,000 requests/s for 5 s | answered | p50 (ms) | p99 (ms) | max (ms) |")
        print("|---|---|---|---|---|")
        print("| round trip | \(sorted.count) | \(ms(sorted[sorted.count / 2])) | \(ms(sorted[sorted.count * 99 / 100])) | \(ms(sorted.last!)) |")
        print("\n| audio during the run | frames | late events | dropped packets | underrun frames | lateness p99 / max (ms, whole run) |")
        print("|---|---|---|---|---|---|")
        print("| deckd | \(after.frames - before.frames) | \(after.lateEvents - before.lateEvents) | \(after.dropped - before.dropped) | "
            + "\(after.underruns - before.underruns) | \(String(format3: after.latenessP99)) / \(String(format3: after.latenessMax)) |")
        print("\nGoals: p99 under 2 ms at 5,000 requests/s, zero underruns.\n")
        try roundTripAgainstBareServer()
        try loopTimePerMethod()
    }

    private func dispatcherAlone(count: Int) -> Double {
        let runtime = try! Runtime(configuration: RuntimeConfiguration.benchDefault, logger: Logger(level: .error))
        let dispatcher = runtime.makeDispatcher()
        let connection = RPCConnection { _ in }
        let bytes = Array(request.utf8)
        let measured = Measurement.of { for _ in 0..<count { _ = dispatcher.handle(bytes, connection: connection) } }
        runtime.shutdown()
        return Double(count) / measured.wall
    }

    /// Requests per second answered when `count` copies of `request` are sent on one connection.
    static func pipelined(_ path: String, request: String, count: Int) throws -> Double {
        guard let client = RPCClient(path: path) else { throw BenchError("cannot connect") }
        let line = Array((request + "\n").utf8)
        let batch = Array([[UInt8]](repeating: line, count: 1000).joined())
        let fd = client.fd
        let start = Subprocess.now()
        let writer = BenchThread {
            for _ in 0..<(count / 1000) { RPCClient.sendAll(fd, batch) }
        }
        var answered = 0
        while answered < count, let _ = client.readLine() { answered += 1 }
        writer.join()
        return Double(answered) / (Double(Subprocess.now() - start) / 1e9)
    }

    /// Each client sends at its share of `totalRate` on an absolute schedule and times each answer.
    private func fixedRate(_ path: String, clients: Int, totalRate: Int, seconds: Int) throws -> [Double] {
        let results = Mutex<[Double]>([])
        let interval = UInt64(1_000_000_000) * UInt64(clients) / UInt64(totalRate)
        let line = Array((request + "\n").utf8)
        let threads = (0..<clients).map { index in
            BenchThread {
                guard let client = RPCClient(path: path) else { return }
                var latencies: [Double] = []
                var next = Subprocess.now() + UInt64(index) * interval / UInt64(clients)
                let end = Subprocess.now() + UInt64(seconds) * 1_000_000_000
                while next < end {
                    var deadline = timespec(tv_sec: Int(next / 1_000_000_000), tv_nsec: Int(next % 1_000_000_000))
                    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil)
                    let sent = Subprocess.now()
                    RPCClient.sendAll(client.fd, line)
                    guard client.readLine() != nil else { break }
                    latencies.append(Double(Subprocess.now() - sent) / 1e9)
                    next += interval
                }
                results.withLock { $0 += latencies }
            }
        }
        threads.forEach { $0.join() }
        return results.withLock { $0 }
    }
}

/// A blocking JSON-RPC client on a Unix socket, for the bench's threads.
final class RPCClient: @unchecked Sendable {  // Used by one thread at a time (reads) and a writer that only sends.
    let fd: Int32
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    init?(path: String) {
        guard case .success(let fd) = UnixSocket.connect(path) else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Waits up to 4 s until deckd accepts connections on `path`.
    static func waitForSocket(_ path: String) throws {
        for _ in 0..<200 {
            if RPCClient(path: path) != nil { return }
            usleep(20_000)
        }
        throw BenchError("deckd did not open \(path)")
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    func readLine() -> [UInt8]? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer += chunk[..<count]
        }
    }

    struct Info {
        var frames = 0, lateEvents = 0, dropped = 0, underruns = 0
        var latenessP99 = 0.0, latenessMax = 0.0
    }

    static func info(_ path: String) throws -> Info {
        guard let client = RPCClient(path: path) else { throw BenchError("cannot connect") }
        sendAll(client.fd, Array(#"{"jsonrpc":"2.0","method":"runtime.info","id":1}"#.utf8) + [10])
        guard let line = client.readLine(), let output = (try? JSONValue.parse(line))?["result"]?["output"] else {
            throw BenchError("no answer to runtime.info")
        }
        func int(_ key: String) -> Int { Int(output[key]?.intValue ?? 0) }
        func double(_ value: JSONValue?) -> Double {
            if case .double(let d)? = value { return d }
            return Double(value?.intValue ?? 0)
        }
        return Info(frames: int("frames"), lateEvents: int("lateEvents"), dropped: int("droppedPackets"),
                    underruns: int("underrunFrames"), latenessP99: double(output["latenessMs"]?["p99"]),
                    latenessMax: double(output["latenessMs"]?["max"]))
    }
}

/// A pthread running a closure, joined explicitly.
final class BenchThread {
    private var thread = pthread_t()

    init(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        pthread_create(&thread, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            box.body()
            return nil
        }, box)
    }

    func join() { pthread_join(thread, nil) }

    /// CPU seconds the thread has run so far; read it before `join`.
    var cpuSeconds: Double {
        var clock = clockid_t()
        pthread_getcpuclockid(thread, &clock)
        return Measurement.cpu(of: clock)
    }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
