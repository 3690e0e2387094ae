import DeckEmbed
import DeckRuntime
import Glibc

/// The embedding API: in-process JSON-RPC round trips from one thread and from eight against
/// the same requests over deckd's socket, and how soon the packet callback gets a packet after
/// the audio thread encoded it.
struct EmbedBench {
    var options: BenchOptions
    let request = #"{"jsonrpc":"2.0","method":"runtime.info","id":1}"#

    func run() throws {
        print("## embed (libdeck's C API, mode 1; runtime.info round trips, each waiting for its answer)\n")
        try roundTrips()
        try packetLatency()
    }

    private func roundTrips() throws {
        guard let rt = deck_runtime_create("{}", nil) else { throw BenchError("deck_runtime_create failed") }
        defer { _ = deck_runtime_destroy(rt) }
        guard deck_runtime_start(rt) == 0 else { throw BenchError("deck_runtime_start failed") }
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(rt)))
        let inProcess = [1, 8].map { threads in
            rate(threads: threads, calls: 40_000) { _ in
                var response: UnsafeMutablePointer<CChar>?
                _ = deck_runtime_call_sync(OpaquePointer(bitPattern: address), request, &response, 10_000)
                deck_runtime_free(response)
            }
        }
        let folder = try TemporaryFolder()
        let socketPath = folder.path + "/deck.sock"
        let deckd = try Subprocess(options.bin + "/deckd", ["--socket", socketPath, "--state", "none", "--sink", "file:\(folder.path)/e.opus",
                                                            "--log-level", "warning", "--isolation", "inline"])
        defer { deckd.finish(signal: SIGTERM) }
        try RPCClient.waitForSocket(socketPath)
        let line = Array((request + "\n").utf8)
        let overSocket = [1, 8].map { threads in
            let clients = (0..<threads).compactMap { _ in RPCClient(path: socketPath) }
            return rate(threads: threads, calls: 40_000) { thread in
                let client = clients[thread]  // one connection per thread
                RPCClient.sendAll(client.fd, line)
                _ = client.readLine()
            }
        }
        print("| round trips | in process (deck_runtime_call_sync) | over deckd's Unix socket | in process vs socket |")
        print("|---|---|---|---|")
        for (index, threads) in [1, 8].enumerated() {
            print("| \(threads) thread\(threads == 1 ? "" : "s") | \(Int(inProcess[index]))/s | \(Int(overSocket[index]))/s | "
                + "\(String(format2: inProcess[index] / overSocket[index]))× |")
        }
    }

    /// Calls per second when `threads` threads make `calls` calls in all; `call` gets its thread's index.
    private func rate(threads: Int, calls: Int, _ call: @escaping @Sendable (Int) -> Void) -> Double {
        let start = Subprocess.now()
        let workers = (0..<threads).map { index in BenchThread { for _ in 0..<(calls / threads) { call(index) } } }
        workers.forEach { $0.join() }
        return Double(calls) / (Double(Subprocess.now() - start) / 1e9)
    }

    private func packetLatency() throws {
        let folder = try TemporaryFolder()
        try TemporaryFolder.write(#"{"isolation": "inline"}"#, to: folder.path + "/policy.json")
        let config = #"{"plugins": ["\#(options.bin)/plugins"], "policy": "\#(folder.path)/policy.json", "logLevel": "error", "#
            + #""session": {"alwaysActive": true}}"#
        guard let rt = deck_runtime_create(config, nil) else { throw BenchError("deck_runtime_create failed") }
        let packets: EmbeddingAPI.PacketFunction = { _, _, _, _, _, _, _ in }
        _ = deck_runtime_set_packet_callback(rt, packets, nil)
        _ = deck_runtime_start(rt)
        _ = deck_runtime_call(rt, #"{"jsonrpc":"2.0","method":"apps.launch","params":{"id":"org.deck.tone","item":"sine-440"},"id":1}"#, nil, nil)
        sleep(UInt32(min(options.realtimeSeconds, 10)))
        let latency = EmbeddingAPI.packetLatency(of: rt)
        _ = deck_runtime_destroy(rt)
        guard let latency else { throw BenchError("no latency recorded") }
        func ms(_ nanoseconds: Int) -> String { String(format3: Double(nanoseconds) / 1e6) }
        print("\n| packet callback after the encode (Tone, paced, \(min(options.realtimeSeconds, 10)) s) | packets | p50 (ms) | p99 (ms) | max (ms) |")
        print("|---|---|---|---|---|")
        print("| audio thread → packet ring → loop → callback | \(latency.count) | \(ms(latency.quantile(0.5))) | "
            + "\(ms(latency.quantile(0.99))) | \(ms(latency.maximum)) |")
        print("")
    }
}
