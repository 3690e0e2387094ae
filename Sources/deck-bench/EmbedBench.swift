import DeckEmbed
import DeckRuntime
import Glibc
import Synchronization

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
        let folder = try TemporaryFolder()
        let socketPath = folder.path + "/deck.sock"
        let deckd = try Subprocess(options.bin + "/deckd", ["--socket", socketPath, "--state", "none", "--sink", "file:\(folder.path)/e.opus",
                                                            "--log-level", "warning", "--isolation", "inline"])
        defer { deckd.finish(signal: SIGTERM) }
        try RPCClient.waitForSocket(socketPath)
        let line = Array((request + "\n").utf8)
        let busy = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        print("| round trips, each timed | calls | in process p50 / p99 (µs) | socket p50 / p99 (µs) | in process vs socket, p50 / p99 |")
        print("|---|---|---|---|---|")
        for loaded in [false, true] {
            let load = loaded ? BusyLoad(threads: busy) : nil
            for threads in [1, 8] {
                let clients = (0..<threads).compactMap { _ in RPCClient(path: socketPath) }
                // Blocks of each, interleaved, so both see the same phases of a shared machine.
                var inProcess: [UInt64] = [], overSocket: [UInt64] = []
                for _ in 0..<10 {
                    inProcess += timed(threads: threads, calls: 4_000) { _ in
                        var response: UnsafeMutablePointer<CChar>?
                        _ = deck_runtime_call_sync(OpaquePointer(bitPattern: address), request, &response, 10_000)
                        deck_runtime_free(response)
                    }
                    overSocket += timed(threads: threads, calls: 4_000) { thread in
                        let client = clients[thread]  // one connection per thread
                        RPCClient.sendAll(client.fd, line)
                        _ = client.readLine()
                    }
                }
                let (a, b) = (quantiles(inProcess), quantiles(overSocket))
                func us(_ nanoseconds: UInt64) -> String { String(format1: Double(nanoseconds) / 1e3) }
                print("| \(threads) thread\(threads == 1 ? "" : "s"), \(loaded ? "\(busy) busy threads beside" : "idle") | \(inProcess.count) | "
                    + "\(us(a.p50)) / \(us(a.p99)) | \(us(b.p50)) / \(us(b.p99)) | "
                    + "\(String(format2: Double(a.p50) / Double(b.p50)))× / \(String(format2: Double(a.p99) / Double(b.p99)))× |")
            }
            load?.stop()
        }
        print("\nGoal: in process below the socket at p50 and p99 (a ratio under 1.00×).")
    }

    /// Each call's wall time when `threads` threads make `calls` calls in all; `call` gets its thread's index.
    private func timed(threads: Int, calls: Int, _ call: @escaping @Sendable (Int) -> Void) -> [UInt64] {
        let samples = Mutex<[UInt64]>([])
        let workers = (0..<threads).map { index in
            BenchThread {
                var mine: [UInt64] = []
                mine.reserveCapacity(calls / threads)
                for _ in 0..<(calls / threads) {
                    let start = Subprocess.now()
                    call(index)
                    mine.append(Subprocess.now() - start)
                }
                samples.withLock { $0 += mine }
            }
        }
        workers.forEach { $0.join() }
        return samples.withLock { $0 }
    }

    private func quantiles(_ samples: [UInt64]) -> (p50: UInt64, p99: UInt64) {
        let sorted = samples.sorted()
        return (sorted[sorted.count / 2], sorted[sorted.count * 99 / 100])
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
