import DeckTestSupport
import Foundation
import Testing

/// What one client can cost deckd is bounded before the work is done, and given back after.
@Suite struct HostileClientTests {
    let firstParty = Paths.corePlugins

    /// A batch line of `count` requests alternating a focus request and its abandon: each one
    /// publishes a `session.changed`.
    func focusFlood(_ count: Int, id: Int) -> String {
        let members = (0..<count).map { index in
            index % 2 == 0
                ? #"{"jsonrpc":"2.0","method":"session.request","params":{"context":"navigation","name":"flood"},"id":\#(id * 1000 + index)}"#
                : #"{"jsonrpc":"2.0","method":"session.abandon","params":{"name":"flood"},"id":\#(id * 1000 + index)}"#
        }
        return "[" + members.joined(separator: ",") + "]"
    }

    @Test func subscribersThatNeverReadAreCutOffAtOnceAndTheMemoryComesBack() throws {
        // Music plays, so each prompt ducks it and each abandon restores it: every request is an event.
        // The stall timeout is out of reach: only the queue's byte cap may cut a client here, however
        // slowly a loaded machine runs the flood.
        let dir = TemporaryDirectory()
        try #"{"control": {"stallTimeoutMs": 600000}}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let daemon = try DeckdProcess(["--plugins", firstParty, "--play", "org.deck.tone:sine-440", "--config", dir.path + "/deck.json"])
        #expect(daemon.waitForLog("deckd: ready"))
        let pid = daemon.process.processIdentifier
        let flooder = LineClient(path: daemon.socket)
        for round in 0..<20 {  // warm up: the allocator's pools exist before the baseline is taken
            flooder.send(line: focusFlood(100, id: round))
            _ = flooder.readLine()
        }
        let before = residentKiB(of: pid)

        let deaf = (0..<20).map { _ in LineClient(path: daemon.socket, receiveBuffer: 4096) }
        for client in deaf { #expect(client.call("events.subscribe", #"{"topics":["session.changed"]}"#)?.contains("session.changed") == true) }
        for round in 0..<100 {
            flooder.send(line: focusFlood(100, id: round))
            #expect(flooder.readLine()?.hasPrefix("[") == true)
        }
        #expect(daemon.waitForLog("disconnected a client that does not read what it is sent", seconds: 10))
        let cutOff = daemon.log.components(separatedBy: "disconnected a client that does not read what it is sent").count - 1
        #expect(cutOff == 20)
        #expect(!daemon.log.contains("does not read its answers"))  // not after a 5 s stall: at once
        let after = residentKiB(of: pid)
        #expect(after - before < 8 * 1024, "resident \(before) KiB before, \(after) KiB after")
        #expect(flooder.call("runtime.info")?.contains(#""version":"0.1.0""#) == true)
        #expect(daemon.stop() == 0)
    }

    @Test func aClientPipeliningFasterThanItReadsIsAnsweredInFullNotCutOff() throws {
        let deckd = try DeckdProcess.firstParty()
        let client = LineClient(path: deckd.socket)
        let count = 5_000  // 3 KiB answers each: 15 MiB, far over control.maxQueuedBytes
        let request = Array(String(repeating: #"{"jsonrpc":"2.0","method":"ui.get","id":1}"# + "\n", count: count).utf8)
        let fd = client.fd
        let writer = Thread { request.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return }
                offset += sent
            }
        } }
        writer.start()
        var answered = 0
        while answered < count, let line = client.readLine() {
            #expect(line.hasPrefix(#"{"id":1,"jsonrpc":"2.0","result":"#))
            answered += 1
            if answered % 500 == 0 { usleep(50_000) }  // a slow reader
        }
        #expect(answered == count)
        #expect(!deckd.log.contains("disconnected"))
    }

    @Test func aHugeBatchIsRefusedBeforeAnyWorkAndTheLoopKeepsTurning() throws {
        let daemon = try DeckdProcess(["--plugins", firstParty])
        #expect(daemon.waitForLog("deckd: ready"))
        let pid = daemon.process.processIdentifier
        let before = residentKiB(of: pid)
        let client = LineClient(path: daemon.socket)
        let discover = #"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"#
        client.send(line: "[" + Array(repeating: discover, count: 10_000).joined(separator: ",") + "]")
        let answer = try #require(client.readLine())
        #expect(answer.contains(#""code":-32001"#))
        #expect(answer.contains("a batch of 10000 requests is over the limit of 100 (control.maxBatch)"))
        // At the limit, the answer is bounded by control.maxResponseBytes.
        client.send(line: "[" + Array(repeating: discover, count: 100).joined(separator: ",") + "]")
        let bounded = try #require(client.readLine())
        #expect(bounded.utf8.count < 1024 * 1024 + 100 * 1024)
        #expect(residentKiB(of: pid) - before < 16 * 1024)
        #expect(daemon.stop() == 0)
    }
}

extension HostileClientTests {
    @Test func aClientCanNeitherForgeLogLinesNorDriveATerminalThroughDeckctl() throws {
        let daemon = try DeckdProcess(["--plugins", firstParty])
        #expect(daemon.waitForLog("deckd: ready"))
        let client = LineClient(path: daemon.socket)
        let forged = #"bad\n2026-01-01T00:00:00.000Z error deckd: forged\u001b[2J"#
        #expect(client.call("sinks.add", #"{"uri":"\#(forged)"}"#)?.contains("-32004") == true)
        // What deckctl prints of an answer quoting the item: escaped, one line.
        let (status, output) = try daemon.deckctl(["launch", "org.deck.tone", "turn\u{1B}]0;owned\u{7}\nleft"])
        #expect(status == 1)
        #expect(output.contains(#"turn\x1b]0;owned\x07\nleft"#), "\(output)")
        #expect(!output.contains("\u{1B}") && !output.contains("\u{7}"))
        let long = String(repeating: "x", count: 500_000)
        #expect(client.call("apps.launch", #"{"id":"org.deck.tone","item":"\#(long)"}"#)?.utf8.count ?? .max < 200)
        #expect(client.call("runtime.info")?.contains(#""version""#) == true)
        #expect(daemon.stop() == 0)
        let lines = daemon.log.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("2026-01-01T") })
        #expect(daemon.log.contains(#"invalid sink bad\n2026-01-01T00:00:00.000Z error deckd: forged\x1b[2J"#))
        #expect(!daemon.log.contains("\u{1B}"))
        #expect(lines.allSatisfy { $0.utf8.count < 5_000 })
    }

    /// A client retrying a refused `sinks.add` in a loop hears each reason, and the log says so
    /// once per burst with the count held back, not once a call.
    @Test func aClientRetryingARefusedSinkInALoopDoesNotFloodTheLog() throws {
        let daemon = try DeckdProcess(["--plugins", firstParty])
        #expect(daemon.waitForLog("deckd: ready"))
        let client = LineClient(path: daemon.socket)
        for attempt in 0..<50 {
            let answer = client.call("sinks.add", #"{"uri":"nowhere:\#(attempt)"}"#, id: attempt) ?? ""
            #expect(answer.contains("-32004") && answer.contains("invalid sink nowhere:\(attempt)"), "\(answer)")
        }
        #expect(daemon.stop() == 0)
        let lines = daemon.log.split(separator: "\n").filter { $0.contains("a client's sinks.add was refused") }
        #expect(lines.count == 1 && lines.first?.contains("invalid sink nowhere:0") == true, "\(lines)")
    }

    /// With the default cap, listeners past 32 are turned away; with the cap lifted, the descriptor
    /// reserve still keeps the last 32 for the rest of the runtime.
    @Test(arguments: [(nil, "32 listeners already (http.maxClients)"), (1_024, "is within 32 of the limit of 128 (ulimit -n; LimitNOFILE= in the unit)")])
    func withFewFileDescriptorsListenersAreCappedAndTheControlSocketStaysReachable(maxClients: Int?, reason: String) throws {
        let dir = TemporaryDirectory()
        var arguments = ["--plugins", firstParty, "--output-dir", dir.path]
        if let maxClients {
            try #"{"http": {"maxClients": \#(maxClients)}}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
            arguments += ["--config", dir.path + "/deck.json"]
        }
        // As `ulimit -n 128`: the limit is inherited from a shell that sets it.
        let daemon = try DeckdProcess(arguments, launcher: ["/bin/sh", "-c", "ulimit -n 128 && exec \"$0\" \"$@\""])
        #expect(daemon.waitForLog("deckd: ready"))
        let info = try #require(LineClient(path: daemon.socket).call("sinks.list"))
        let port = try #require(info.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) })
        var listeners: [Int32] = []
        defer { listeners.forEach { close($0) } }
        for _ in 0..<200 {
            let fd = LoopbackClient.connect(port: port)
            if fd >= 0 { LoopbackClient.send(fd, "GET /stream.opus HTTP/1.1\r\n\r\n"); listeners.append(fd) }
        }
        #expect(daemon.waitForLog("answered 503 Service Unavailable"))
        #expect(daemon.log.contains(reason))
        // The owner still gets in, and can still add a sink.
        let client = LineClient(path: daemon.socket)
        #expect(client.call("runtime.info")?.contains(#""version":"0.1.0""#) == true)
        #expect(client.call("sinks.add", #"{"uri":"file:after.opus"}"#)?.contains(#""result""#) == true)
        let sinks = try #require(client.call("sinks.list"))
        if maxClients == nil { #expect(sinks.contains(#""clients":32"#)) }
        #expect(daemon.stop() == 0)
    }

    /// A client's HTTP sink on 0.0.0.0 would serve the car's audio to anyone on the network; as
    /// `--tcp` needs `--tcp-allow-remote`, it needs `http.allowRemoteListeners`.
    @Test func aClientCannotPutTheCarsAudioOnTheNetworkUnlessAllowed() throws {
        let dir = TemporaryDirectory()
        let daemon = try DeckdProcess(["--plugins", firstParty, "--play", "org.deck.tone:sine-440"])
        #expect(daemon.waitForLog("deckd: ready"))
        let client = LineClient(path: daemon.socket)
        let refused = try #require(client.call("sinks.add", #"{"uri":"http://0.0.0.0:0/open.opus"}"#))
        #expect(refused.contains("clients may open HTTP sinks on loopback addresses only (127.0.0.1, ::1), not 0.0.0.0"), "\(refused)")
        #expect(client.call("sinks.list")?.contains("0.0.0.0") == false)
        #expect(client.call("sinks.add", #"{"uri":"http://127.0.0.1:0/local.opus"}"#)?.contains(#""result""#) == true)
        #expect(daemon.stop() == 0)

        try #"{"http": {"allowRemoteListeners": true}}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let allowing = try DeckdProcess(["--plugins", firstParty, "--config", dir.path + "/deck.json"])
        #expect(allowing.waitForLog("deckd: ready"))
        let added = LineClient(path: allowing.socket).call("sinks.add", #"{"uri":"http://0.0.0.0:0/open.opus"}"#)
        #expect(added?.contains(#""uri":"http://0.0.0.0:"#) == true, "\(added ?? "")")
        #expect(allowing.stop() == 0)
    }
}
