import Glibc

extension IsolationBench {
    /// How long a listener on this machine waits for an HTTP sink's answer, where the sink asks
    /// whose process it is (plugins may not record the car), against inline plugins in the same run,
    /// where no host process is looked for.
    func listeners(_ folder: String) throws {
        let count = 300, rounds = 3
        let variants: [(name: String, config: String, mode: String)] = [
            ("all inline (reference; as root the socket's uid is still asked)", "{}", "inline"),
            ("hosts on uids of their own (root): the socket's uid decides", "{}", "process"),
            ("hosts on the runtime's uid: their processes and cgroups are searched", #"{"isolation": {"uidBase": 0}}"#, "process"),
        ].filter { $0.mode == "inline" || $0.config != "{}" || geteuid() == 0 }
        var times = [[Double]](repeating: [], count: variants.count)
        for _ in 0..<rounds {
            for (index, variant) in variants.enumerated() {
                times[index] += try admissions(variant.config, mode: variant.mode, count: count, folder: folder)
            }
        }
        print("### A listener on this machine joins an HTTP sink (\(rounds) × \(count) connections each, interleaved; the 4 first-party apps loaded)\n")
        print("| plugins | connect → response head, p50 (µs) | p99 (µs) | p50 vs inline |")
        print("|---|---|---|---|")
        let reference = percentile(times[0], 50)
        for (variant, samples) in zip(variants, times) {
            print("| \(variant.name) | \(String(format1: percentile(samples, 50))) | \(String(format1: percentile(samples, 99))) | "
                  + "\(String(format2: percentile(samples, 50) / reference))× |")
        }
        print("")
    }

    /// Microseconds from connecting to the response head, for `count` listeners one after the other.
    private func admissions(_ config: String, mode: String, count: Int, folder: String) throws -> [Double] {
        try TemporaryFolder.write(config, to: folder + "/listeners.json")
        let port = try SimulatorBench.freePort()
        let deckd = try Subprocess(options.bin + "/deckd", ["--config", folder + "/listeners.json", "--plugins", options.bin + "/plugins",
                                                            "--isolation", mode, "--state", "none", "--socket", folder + "/listeners.sock",
                                                            "--sink", "http://127.0.0.1:\(port)/stream.opus", "--play", "org.deck.tone:silence"])
        defer { deckd.finish(signal: SIGTERM) }
        guard deckd.millisecondsUntil("deckd: ready") != nil else { throw BenchError("deckd did not start:\n\(deckd.output.suffix(2000))") }
        let request = Array("GET /stream.opus HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8), end = Array("\r\n\r\n".utf8)
        var samples: [Double] = [], chunk = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<count {
            let started = Subprocess.now()
            let fd = try SimulatorBench.connect(port: port)
            RPCClient.sendAll(fd, request)
            var head: [UInt8] = []
            while head.firstRange(of: end) == nil && head.count < 4096, case let got = recv(fd, &chunk, chunk.count, 0), got > 0 {
                head += chunk[..<got]
            }
            samples.append(Double(Subprocess.now() - started) / 1e3)
            close(fd)
            guard head.starts(with: Array("HTTP/1.1 200".utf8)) else {
                throw BenchError("the sink did not answer 200: \(String(decoding: head.prefix(80), as: UTF8.self))")
            }
        }
        return samples
    }

    func percentile(_ values: [Double], _ percent: Int) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, sorted.count * percent / 100)]
    }
}
