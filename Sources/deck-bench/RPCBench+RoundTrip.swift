import CProcess
import DeckRuntime
import Glibc
import Synchronization

extension RPCBench {
    /// One request at a time, each waiting for its answer, with deckd, the client and a bare
    /// server all pinned to CPU 0 (a wake-up across CPUs on a VM costs more than the work): deckd's
    /// answer against a bare server on the same kind of socket that answers each line with a
    /// prepared line of the same size. Interleaved rounds; p50 and p99 over all of them.
    func roundTripAgainstBareServer(rounds: Int = 5, perRound: Int = 4_000) throws {
        let work = try TemporaryFolder()
        let socketPath = work.path + "/deck.sock", barePath = work.path + "/bare.sock", bareProcessPath = work.path + "/bare-process.sock"
        let deckd = try Subprocess("/usr/bin/taskset", ["-c", "0", options.bin + "/deckd", "--socket", socketPath, "--state", "none",
                                                        "--sink", "file:\(work.path)/idle.opus", "--log-level", "warning", "--isolation", "inline"])
        defer { deckd.finish(signal: SIGTERM) }
        try RPCClient.waitForSocket(socketPath)
        let methods = ["runtime.info", "session.get", "nowPlaying.get"]
        var sizes: [String: Int] = [:]
        for method in methods {
            guard let client = RPCClient(path: socketPath) else { throw BenchError("cannot connect") }
            RPCClient.sendAll(client.fd, Array(#"{"jsonrpc":"2.0","method":"\#(method)","id":1}"#.utf8) + [10])
            sizes[method] = (client.readLine()?.count ?? 0) + 1
        }
        let samples = Mutex<[String: [UInt64]]>([:])
        let answerSizes = sizes

        let pinned = BenchThread {
            RPCBench.pinToFirstCPU()
            for _ in 0..<rounds {
                for method in methods {
                    let line = Array(#"{"jsonrpc":"2.0","method":"\#(method)","id":1}"#.utf8) + [10]
                    let bare = BareLineServer(path: barePath, answerBytes: answerSizes[method]!)
                    if let bareClient = RPCClient(path: barePath) {
                        let times = RPCBench.timedRoundTrips(bareClient, line, count: perRound)
                        samples.withLock { $0["bare server, \(method)-sized", default: []] += times }
                    }
                    bare.stop()  // its client closed above
                    if let server = try? Subprocess("/usr/bin/taskset", ["-c", "0", BareLineServer.benchExecutable, "--bare-line-server", bareProcessPath,
                                                                         String(answerSizes[method]!)]) {
                        if (try? RPCClient.waitForSocket(bareProcessPath)) != nil, let client = RPCClient(path: bareProcessPath) {
                            let times = RPCBench.timedRoundTrips(client, line, count: perRound)
                            samples.withLock { $0["bare process, \(method)-sized", default: []] += times }
                        }
                        _ = server.finish(signal: SIGTERM)
                    }
                    if let client = RPCClient(path: socketPath) {
                        let times = RPCBench.timedRoundTrips(client, line, count: perRound)
                        samples.withLock { $0[method, default: []] += times }
                    }
                }
            }
        }
        pinned.join()
        let measured = samples.withLock { $0 }
        print("### Round trip, one request at a time (deckd idle, client and servers pinned to CPU 0, \(rounds) interleaved rounds of \(perRound))\n")
        print("| request | answer (bytes) | bare server thread p50 / p99 (µs) | bare server process p50 / p99 (µs) | deckd p50 / p99 (µs) | "
            + "deckd vs bare thread, p50 | deckd vs bare process, p50 |")
        print("|---|---|---|---|---|---|---|")
        func p50(_ sorted: [UInt64]) -> UInt64 { sorted[sorted.count / 2] }
        func us(_ sorted: [UInt64]) -> String {
            String(format1: Double(p50(sorted)) / 1e3) + " / " + String(format1: Double(sorted[sorted.count * 99 / 100]) / 1e3)
        }
        for method in methods {
            let thread = (measured["bare server, \(method)-sized"] ?? [0]).sorted(), process = (measured["bare process, \(method)-sized"] ?? [0]).sorted()
            let deck = (measured[method] ?? [0]).sorted()
            func ratio(_ reference: [UInt64]) -> String { String(format2: Double(p50(deck)) / Double(max(p50(reference), 1))) + "×" }
            print("| \(method) | \(sizes[method]!) | \(us(thread)) | \(us(process)) | \(us(deck)) | \(ratio(thread)) | \(ratio(process)) |")
        }
        print("\nGoal: deckd's p50 at most 2× the bare server's. The thread shares the client's process, so switching to it costs no change of address space; the process is the like-for-like reference for deckd, a process of its own.\n")
    }

    static func timedRoundTrips(_ client: RPCClient, _ line: [UInt8], count: Int) -> [UInt64] {
        var times: [UInt64] = []
        times.reserveCapacity(count)
        for _ in 0..<count {
            let start = Subprocess.now()
            RPCClient.sendAll(client.fd, line)
            _ = client.readLine()
            times.append(Subprocess.now() - start)
        }
        return times
    }

    static func pinToFirstCPU() { _ = deck_pin_thread(0) }
}

/// A server that answers every line on one connection with a prepared line of `answerBytes`
/// bytes: the least any server can do, the reference for deckd's round trip. It runs as a thread
/// of the bench (the client's own process: switching to it changes no address space) or as a
/// process of its own, as deckd is (`deck-bench --bare-line-server PATH BYTES`).
final class BareLineServer {
    private let listener: Int32
    private let thread: BenchThread

    init(path: String, answerBytes: Int) {
        let listener = BareLineServer.listen(at: path)
        self.listener = listener
        thread = BenchThread {
            RPCBench.pinToFirstCPU()
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            BareLineServer.serve(connection, answerBytes: answerBytes)
        }
    }

    /// Ends the server once its client has closed.
    func stop() {
        thread.join()
        close(listener)
    }

    /// This bench's own executable, which serves as the process form.
    static var benchExecutable: String {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        return length > 0 ? String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }

    /// The process form: serves one connection after another until it is signalled.
    static func runAsProcess(path: String, answerBytes: Int) -> Int32 {
        let listener = listen(at: path)
        guard listener >= 0 else { return 1 }
        while true {
            let connection = accept(listener, nil, nil)
            if connection >= 0 { serve(connection, answerBytes: answerBytes) }
        }
    }

    private static func listen(at path: String) -> Int32 {
        unlink(path)
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        Glibc.listen(listener, 1)
        return listener
    }

    /// Answers each line on `connection` until the client closes it.
    private static func serve(_ connection: Int32, answerBytes: Int) {
        defer { close(connection) }
        let answer = [UInt8](repeating: UInt8(ascii: "x"), count: max(answerBytes - 1, 0)) + [10]
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { return }
            for byte in buffer[..<count] where byte == 10 { RPCClient.sendAll(connection, answer) }
        }
    }
}
