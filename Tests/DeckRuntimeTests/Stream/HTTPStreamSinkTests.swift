import DeckTestSupport
import Foundation
import Synchronization
import Testing
@testable import DeckRuntime
@testable import DeckStream

@Suite struct HTTPStreamSinkTests {
    func port(_ harness: StreamingHarness) throws -> Int {
        let uri = try #require(harness.sink("http://")?.uri)
        guard case .http(_, let port, _) = try SinkURI(uri) else { throw CommandFailure(description: uri) }
        return port
    }

    /// Runs `client` on a helper thread while the loop turns, and returns what it returned.
    func exchange(_ harness: StreamingHarness, _ client: @escaping @Sendable () -> [UInt8]) -> String {
        let result = Mutex<[UInt8]?>(nil)
        Thread { let bytes = client(); result.withLock { $0 = bytes } }.start()
        turnLoop(harness.runtime.loop, seconds: 15) { result.withLock { $0 != nil } }
        return String(decoding: result.withLock { $0 } ?? [], as: UTF8.self)
    }

    @Test func ffmpegJoiningLateGetsTheHeadersAndDecodesTheStream() throws {
        let harness = try StreamingHarness(freewheel: false, sinks: ["http://127.0.0.1:0/stream.opus"])
        try harness.load(Paths.toneBundle)
        try harness.runtime.focus.play(pluginID: "org.deck.tone", item: "stereo-440-660")
        try harness.start()
        harness.run(for: 0.7)  // the stream is under way before the client arrives
        let dir = TemporaryDirectory()
        let ffmpeg = try ChildProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-i", "http://127.0.0.1:\(try port(harness))/stream.opus",
                                                          "-t", "1.5", "-f", "f32le", "-ac", "2", "-ar", "48000", dir.path + "/out.f32"],
                                      output: .file(dir.path + "/ffmpeg.log"))
        harness.run(while: ffmpeg, seconds: 30)
        #expect(ffmpeg.terminationStatus == 0, "\((try? String(contentsOfFile: dir.path + "/ffmpeg.log", encoding: .utf8)) ?? "")")
        let decoded = try AudioAnalysis.readF32Stereo(dir.path + "/out.f32")
        #expect(abs(decoded.frames - 72_000) <= 960)
        #expect(abs(try AudioAnalysis.dominantFrequency(decoded.left, start: 0) - 440) < 3)
        #expect(abs(try AudioAnalysis.dominantFrequency(decoded.right, start: 0) - 660) < 3)
    }

    @Test func aClientThatStopsReadingIsDroppedWhileAnotherKeepsReceiving() throws {
        let harness = try StreamingHarness(freewheel: true, seconds: 120) {
            $0.audio.encoder.bitrate = 510_000
            $0.httpLimits.maxQueuedBytes = 64 * 1024
        }
        try harness.runtime.output.addSink("http://127.0.0.1:0/stream.opus")  // open, but no audio yet
        try harness.load(Paths.toneBundle)
        try harness.runtime.focus.play(pluginID: "org.deck.tone", item: "pink-noise")
        let port = try port(harness)
        let stalled = LoopbackClient.connect(port: port, receiveBuffer: 4096)
        LoopbackClient.send(stalled, "GET /stream.opus HTTP/1.1\r\nHost: x\r\n\r\n")
        let received = Atomic<Int>(-1)
        Thread {
            let fd = LoopbackClient.connect(port: port)
            LoopbackClient.send(fd, "GET /stream.opus HTTP/1.1\r\nHost: x\r\n\r\n")
            received.store(LoopbackClient.readAll(fd, limit: 1 << 30, seconds: 20).count, ordering: .relaxed)
            close(fd)
        }.start()
        harness.run(for: 0.3)  // both requests are read before the audio starts
        #expect(harness.sink("http://")?.status.clients == 2)
        try harness.start()
        #expect(harness.runUntilFinished())
        #expect(harness.sink("http://")?.status.droppedClients == 1)
        #expect(harness.sink("http://")?.status.clients == 1)
        harness.runtime.sinks.closeAll()  // ends the reader's response
        turnLoop(harness.runtime.loop) { received.load(ordering: .relaxed) >= 0 }
        close(stalled)
        #expect(harness.log.contains(.warning, "dropped a client that is not reading"))
        // 120 s at 510 kbit/s is about 7.6 MB: the reading client got it all.
        #expect(received.load(ordering: .relaxed) > 6_000_000)
    }

    @Test func otherPathsMalformedRequestsAndBadMethodsAreAnsweredAndClosed() throws {
        let harness = try StreamingHarness(freewheel: false, sinks: ["http://127.0.0.1:0/stream.opus"])
        try harness.start()
        let port = try port(harness)
        func request(_ text: String) -> String {
            exchange(harness) {
                let fd = LoopbackClient.connect(port: port)
                LoopbackClient.send(fd, text)
                defer { close(fd) }
                return LoopbackClient.readAll(fd)
            }
        }
        #expect(request("GET /other.opus HTTP/1.1\r\nHost: x\r\n\r\n").hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        #expect(request("GARBAGE\r\n\r\n").hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(request("GET /stream.opus HTTP/1.1\r\nno colon here\r\n\r\n").hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(request("GET /stream.opus HTTP/2.0\r\n\r\n").hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        let post = request("POST /stream.opus HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        #expect(post.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"))
        #expect(post.contains("Allow: GET, HEAD\r\n"))
        #expect(request("GET /other.opus?x HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        #expect(request("HEAD /stream.opus?nocache=1 HTTP/1.0\r\n\r\n").hasPrefix("HTTP/1.1 200 OK\r\n"), "a query is not part of the mount")
        #expect(request("HEAD /stream%2Eopus HTTP/1.0\r\n\r\n").hasPrefix("HTTP/1.1 200 OK\r\n"), "an escape names the same mount")
        let missing = request("HEAD /stream%2 HTTP/1.0\r\n\r\n")
        #expect(missing.hasPrefix("HTTP/1.1 404 Not Found\r\n"), "a malformed escape names none")
        #expect(missing.hasSuffix("\r\n\r\n"), "a HEAD's answer has no content: \(missing)")
        let head = request("HEAD /stream.opus HTTP/1.0\r\n\r\n")
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: audio/ogg\r\n"))
        #expect(head.hasSuffix("\r\n\r\n"))
        let huge = "GET /stream.opus HTTP/1.1\r\nX-Padding: " + String(repeating: "a", count: 9000) + "\r\n\r\n"
        #expect(request(huge).hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"))
        // Clients' mistakes are logged (once per burst) but are not errors of the sink.
        #expect(harness.runtime.sinks.list.first?.status.errors == 0)
        #expect(harness.log.contains(.warning, "answered 404 Not Found: GET /other.opus"))
    }

    /// A listener beyond loopback serves the car's audio to the whole network, unauthenticated: a
    /// client may open one only when the integrator allows it; the integrator's own sinks may.
    @Test(arguments: [false, true]) func aClientListensOnLoopbackUnlessTheIntegratorAllowsMore(allowed: Bool) throws {
        let harness = try StreamingHarness(freewheel: true) { $0.httpLimits.allowRemoteListeners = allowed }
        let output = harness.runtime.output
        if allowed {
            #expect(try output.addSink("http://0.0.0.0:0/a.opus", fromClient: true).uri.hasPrefix("http://0.0.0.0:"))
        } else {
            for (uri, host) in [("http://0.0.0.0:0/a.opus", "0.0.0.0"), ("http://[::]:0/b.opus", "::"), ("http://10.0.0.2:0/c.opus", "10.0.0.2")] {
                #expect(throws: SinkError.cannotOpen(uri, "clients may open HTTP sinks on loopback addresses only (127.0.0.1, ::1), not \(host), "
                                                     + "which would serve the car's audio to the network; the integrator sets http.allowRemoteListeners")) {
                    try output.addSink(uri, fromClient: true)
                }
            }
        }
        #expect(throws: Never.self) { try output.addSink("http://127.0.0.1:0/d.opus", fromClient: true) }
        #expect(throws: Never.self) { try output.addSink("http://localhost:0/e.opus", fromClient: true) }
        #expect(throws: Never.self) { try output.addSink("http://0.0.0.0:0/f.opus") }  // the integrator's own
        #expect(harness.runtime.sinks.list.count == (allowed ? 4 : 3))
        #expect(harness.shutDown())
    }

    /// A listener the runtime says is a plugin's gets 403 as soon as it connects (it holds no
    /// listener's place); the gate is asked with both ends of the connection and is shared by
    /// sinks opened before it was set.
    @Test func aListenerTheGateRefusesIsAnswered403() throws {
        let harness = try StreamingHarness(freewheel: false, sinks: ["http://127.0.0.1:0/stream.opus"])
        let asked = Mutex<[String]>([])
        harness.runtime.output.listenerGate.refusal = { local, remote in
            asked.withLock { $0.append("\(local.port) \(remote.host)") }
            return "\(remote) is the test's plugin"
        }
        try harness.start()
        let port = try port(harness)
        let answer = exchange(harness) {
            let fd = LoopbackClient.connect(port: port)
            defer { close(fd) }
            return LoopbackClient.readAll(fd)
        }
        #expect(answer.hasPrefix("HTTP/1.1 403 Forbidden\r\n"), "\(answer)")
        #expect(asked.withLock { $0 } == ["\(port) 127.0.0.1"])
        #expect(harness.log.contains(.warning, "answered 403 Forbidden: 127.0.0.1:"))
        #expect(harness.sink("http://")?.status.clients == 0)
    }

    /// A listener on this machine is asked about whichever of its addresses it connects from:
    /// from an interface's to loopback, and to a dual-stack sink, which names IPv4 peers mapped.
    @Test(arguments: ["http://127.0.0.1:0/stream.opus", "http://[::]:0/stream.opus"])
    func aListenerFromAnInterfacesAddressIsAskedAbout(uri: String) throws {
        let interface = try #require(LoopbackClient.interfaceAddress(), "an interface of this machine with an IPv4 address")
        let harness = try StreamingHarness(freewheel: false, sinks: [uri])
        let asked = Mutex<[String]>([])
        harness.runtime.output.listenerGate.refusal = { local, remote in
            asked.withLock { $0.append(remote.host) }
            return "\(remote) is the test's plugin"
        }
        try harness.start()
        let port = try port(harness)
        let answer = exchange(harness) {
            let fd = LoopbackClient.connect(port: port, from: interface)
            defer { close(fd) }
            return LoopbackClient.readAll(fd)
        }
        #expect(answer.hasPrefix("HTTP/1.1 403 Forbidden\r\n"), "\(answer)")
        #expect(asked.withLock { $0 } == [uri.contains("[::]") ? "::ffff:\(interface)" : interface])
        #expect(harness.shutDown())
    }

    @Test func listenersBeyondTheCapAreAnswered503() throws {
        let harness = try StreamingHarness(freewheel: false, sinks: ["http://127.0.0.1:0/stream.opus"]) {
            $0.httpLimits.maxClients = 2
        }
        try harness.start()
        let port = try port(harness)
        let listeners = (0..<2).map { _ in
            let fd = LoopbackClient.connect(port: port)
            LoopbackClient.send(fd, "GET /stream.opus HTTP/1.1\r\n\r\n")
            return fd
        }
        defer { listeners.forEach { close($0) } }
        turnLoop(harness.runtime.loop) { harness.sink("http://")?.status.clients == 2 }
        let third = exchange(harness) {
            let fd = LoopbackClient.connect(port: port)
            defer { close(fd) }
            return LoopbackClient.readAll(fd)
        }
        #expect(third.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(harness.sink("http://")?.status.clients == 2)
        #expect(harness.log.contains(.warning, "answered 503 Service Unavailable: 2 listeners already (http.maxClients)"))
    }

    @Test func aRequestHeadNotFinishedInTimeIsCutOff() throws {
        let harness = try StreamingHarness(freewheel: false, sinks: ["http://127.0.0.1:0/stream.opus"]) {
            $0.httpLimits.headTimeoutMilliseconds = 200
        }
        try harness.start()
        let port = try port(harness)
        let started = Date()
        let response = exchange(harness) {
            let fd = LoopbackClient.connect(port: port)
            LoopbackClient.send(fd, "GET /stream.opus HTTP/1.1\r\n")  // never finished
            defer { close(fd) }
            return LoopbackClient.readAll(fd)
        }
        #expect(response.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"))
        #expect(Date().timeIntervalSince(started) < 5)
    }

    /// A port a sink listens on is named with that sink; one something else holds, with the system's reason.
    @Test func aPortInUseIsRefusedWithTheReason() throws {
        let harness = try StreamingHarness(freewheel: false, sinks: ["http://127.0.0.1:0/a.opus"])
        try harness.start()
        let port = try port(harness)
        #expect(throws: SinkError.cannotOpen("http://127.0.0.1:\(port)/b.opus", "sink 1 listens on 127.0.0.1:\(port) already")) {
            try harness.runtime.output.addSink("http://127.0.0.1:\(port)/b.opus")
        }
        let (held, heldPort) = try FreePort.held()
        defer { close(held) }
        #expect(throws: SinkError.cannotOpen("http://127.0.0.1:\(heldPort)/b.opus", "listening on 127.0.0.1:\(heldPort) (another program holds the port): address already in use (EADDRINUSE)")) {
            try harness.runtime.output.addSink("http://127.0.0.1:\(heldPort)/b.opus")
        }
    }
}
