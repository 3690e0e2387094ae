import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckStream

@Suite struct RTPSinkTests {
    /// A free UDP port on loopback (bound, read back, released).
    func freePort() throws -> Int {
        let loop = try EventLoop()
        let probe = try UDPSocket(loop: loop)
        try probe.bind(SocketAddress(host: "127.0.0.1", port: 0))
        defer { probe.close() }
        return try #require(probe.localAddress?.port)
    }

    /// Tone's sine playing for a second into `harness`'s sinks.
    func playTone(_ harness: StreamingHarness) throws {
        try harness.load(Paths.toneBundle)
        try harness.runtime.focus.play(pluginID: "org.deck.tone", item: "sine-440")
        try harness.start()
        harness.run(for: 1)
    }

    /// A broadcast address is no receiver: 255.255.255.255 is refused when the sink is added, and
    /// a subnet's, to which the kernel refuses each datagram (EACCES), is named as the likely cause.
    @Test func aBroadcastAddressIsRefusedOrNamedAsTheCause() throws {
        let harness = try StreamingHarness(freewheel: false)
        #expect(throws: SinkError.cannotOpen("rtp://255.255.255.255:5004?pt=96", RTPSink.notBroadcast)) {
            try harness.runtime.output.addSink("rtp://255.255.255.255:5004")
        }
        // A subnet on loopback of TEST-NET-3 (unused by other tests), a half for each isolation mode,
        // whose test processes run at once: its broadcast address is 203.0.113.127 or .255.
        let (address, broadcast) = TestIsolation.mode == .inline ? ("203.0.113.1/25", "203.0.113.127") : ("203.0.113.129/25", "203.0.113.255")
        let added = try runProgram("/sbin/ip", ["address", "add", address, "brd", "+", "dev", "lo"])
        try #require(added.status == 0, "\(added.output)")
        defer { _ = try? runProgram("/sbin/ip", ["address", "del", address, "dev", "lo"]) }
        try harness.runtime.output.addSink("rtp://\(broadcast):\(try freePort())")
        try playTone(harness)
        let sink = try #require(harness.sink("rtp://\(broadcast)"))
        #expect(sink.status.packets == 0 && sink.status.errors >= 40, "\(sink.status)")
        #expect(sink.status.lastError?.hasSuffix("permission denied (EACCES): is it a broadcast address? \(RTPSink.notBroadcast)") == true,
                "\(sink.status.lastError ?? "")")
        #expect(harness.shutDown())
    }

    @Test func ffmpegReceivesTheStreamFromTheSDPAndHearsTheTone() throws {
        let dir = TemporaryDirectory()
        let sdp = dir.path + "/stream.sdp"
        let port = try freePort()
        let harness = try StreamingHarness(freewheel: false, sinks: ["rtp://127.0.0.1:\(port)?pt=97&sdp=\(sdp)"])
        try harness.load(Paths.toneBundle)
        try harness.start()  // opens the sink, which writes the SDP
        let description = try String(contentsOfFile: sdp, encoding: .utf8)
        #expect(description.contains("m=audio \(port) RTP/AVP 97\r\n"))
        #expect(description.contains("a=rtpmap:97 opus/48000/2\r\n"))
        #expect(description.contains("a=fmtp:97 sprop-stereo=1;"))

        let ffmpeg = try ChildProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-protocol_whitelist", "file,udp,rtp", "-i", sdp,
                                                          "-t", "1.5", "-f", "f32le", "-ac", "2", "-ar", "48000", dir.path + "/out.f32"],
                                      output: .file(dir.path + "/ffmpeg.log"))
        harness.run(for: 0.5)  // ffmpeg is listening before the tone starts
        try harness.runtime.focus.play(pluginID: "org.deck.tone", item: "sine-1000")
        harness.run(while: ffmpeg, seconds: 30)
        #expect(ffmpeg.terminationStatus == 0, "\((try? String(contentsOfFile: dir.path + "/ffmpeg.log", encoding: .utf8)) ?? "")")
        let decoded = try AudioAnalysis.readF32Stereo(dir.path + "/out.f32")
        #expect(decoded.frames >= 48_000)
        #expect(abs(try AudioAnalysis.dominantFrequency(decoded.left, start: decoded.frames - 40_000) - 1000) < 3)
        // Not just a frame count: the tone is clean in both channels.
        #expect(try AudioAnalysis.sineSNR(decoded.left, frequency: 1000, start: decoded.frames - 30_000, count: 24_000) > 25)
        #expect(try AudioAnalysis.sineSNR(decoded.right, frequency: 1000, start: decoded.frames - 30_000, count: 24_000) > 25)
    }

    /// To this machine, a packet goes only while the socket that would receive it is not a
    /// plugin's, as the runtime's gate says (asked once per socket): a refused receiver gets
    /// nothing, and one that takes the port after it gets the stream.
    @Test func aReceiverTheGateRefusesGetsNothingAndTheNextOneGetsTheStream() throws {
        let receiverLoop = try EventLoop()
        let refused = try UDPSocket(loop: receiverLoop)
        try refused.bind(SocketAddress(host: "127.0.0.1", port: 0))
        var stolen = 0, heard = 0
        try refused.startReceiving { _ in stolen += 1 }
        let target = try SocketAddress(host: "127.0.0.1", port: try #require(refused.localAddress?.port))
        let refusedInode = try #require(LoopbackPeer.datagramReceiver(sender: try SocketAddress(host: "127.0.0.1", port: 1), target: target)).inode
        let harness = try StreamingHarness(freewheel: false, sinks: ["rtp://\(target)"])
        var asked: [UInt64] = []
        harness.runtime.output.listenerGate.receiverRefusal = { socket, name in
            asked.append(socket.inode)
            return socket.inode == refusedInode ? "\(name) is the test's plugin" : nil
        }
        try playTone(harness)
        #expect(!turnLoop(receiverLoop, seconds: 0.3) { stolen > 0 }, "the refused socket got \(stolen) datagrams")
        let sink = try #require(harness.sink("rtp://"))
        #expect(sink.status.packets == 0 && sink.status.errors >= 40, "\(sink.status)")
        #expect(sink.status.lastError == "not sent: the socket receiving \(target) is the test's plugin")
        #expect(harness.log.contains(.warning, "rtp://\(target)?pt=96: not sending: the socket receiving \(target) is the test's plugin"))
        #expect(asked == [refusedInode], "asked once for that socket")

        refused.close()
        let next = try UDPSocket(loop: receiverLoop)
        defer { next.close() }
        try next.bind(target)
        try next.startReceiving { _ in heard += 1 }
        harness.run(for: 1)
        #expect(turnLoop(receiverLoop, seconds: 2) { heard >= 40 }, "the next receiver heard \(heard)")
        #expect(try #require(harness.sink("rtp://")).status.packets >= 40)
        #expect(harness.log.contains(.info, "rtp://\(target)?pt=96: sending again: the socket receiving \(target) is not a plugin's"))
        #expect(asked.count == 2)
        #expect(harness.shutDown())
    }

    /// A datagram to 0.0.0.0 or :: is the kernel's to loopback, and one to ::ffff:127.0.0.1 IPv4's:
    /// such a target is checked as the loopback address it reaches.
    @Test(arguments: [("0.0.0.0", "127.0.0.1"), ("::", "::1"), ("::ffff:127.0.0.1", "127.0.0.1"), ("0:0:0:0:0:0:0:1", "::1"),
                      ("::ffff:0.0.0.0", "127.0.0.1")])
    func anAddressTheKernelTakesToLoopbackIsCheckedAsLoopback(unspecified: String, loopback: String) throws {
        let receiverLoop = try EventLoop()
        let refused = try UDPSocket(loop: receiverLoop)
        defer { refused.close() }
        try refused.bind(SocketAddress(host: loopback, port: 0))
        var stolen = 0
        try refused.startReceiving { _ in stolen += 1 }
        let port = try #require(refused.localAddress?.port)
        let harness = try StreamingHarness(freewheel: false, sinks: ["rtp://\(unspecified.contains(":") ? "[\(unspecified)]" : unspecified):\(port)"])
        harness.runtime.output.listenerGate.receiverRefusal = { _, name in "\(name) is the test's plugin" }
        try playTone(harness)
        #expect(!turnLoop(receiverLoop, seconds: 0.3) { stolen > 0 }, "the refused socket got \(stolen) datagrams")
        let sink = try #require(harness.sink("rtp://"))
        #expect(sink.status.packets == 0 && sink.status.errors >= 40, "\(sink.status)")
        let error = sink.status.lastError ?? ""
        #expect(error.hasPrefix("not sent: the socket receiving ") && error.hasSuffix(":\(port) is the test's plugin"), "\(error)")
        #expect(harness.shutDown())
    }

    /// An address this machine gains while the sink plays (as DHCP may give one) is checked as
    /// this machine's from the next packet: a plugin's socket bound to every address hears none of
    /// the stream; once the address is gone, packets go out again.
    @Test func anAddressThisMachineGainsWhileTheSinkPlaysIsCheckedFromThen() throws {
        let lo = LoopbackAddressForTest(), address = lo.address
        let receiverLoop = try EventLoop()
        let plugin = try UDPSocket(loop: receiverLoop)
        defer { plugin.close() }
        try plugin.bind(SocketAddress(host: "0.0.0.0", port: 0))
        var stolen = 0
        try plugin.startReceiving { _ in stolen += 1 }
        let port = try #require(plugin.localAddress?.port)
        let uri = "rtp://\(address):\(port)"
        let harness = try StreamingHarness(freewheel: false, sinks: [uri])
        harness.runtime.output.listenerGate.receiverRefusal = { _, name in "\(name) is the test's plugin" }
        try playTone(harness)
        let status = { harness.sink("rtp://")?.status ?? SinkStatus() }
        #expect(status().packets >= 40 && status().errors == 0, "sent off this machine first: \(status())")

        try lo.add()
        harness.run(for: 1)
        #expect(!turnLoop(receiverLoop, seconds: 0.3) { stolen > 0 }, "the plugin's socket got \(stolen) datagrams")
        #expect(status().errors >= 40, "\(status())")
        #expect(status().lastError == "not sent: the socket receiving \(address):\(port) is the test's plugin")
        #expect(harness.log.contains(.info, "\(uri)?pt=96: \(address) is now an address of this machine"))

        try lo.remove()
        let sent = status().packets
        harness.run(for: 1)
        #expect(status().packets >= sent + 40, "sent off this machine again: \(status())")
        #expect(harness.log.contains(.info, "\(uri)?pt=96: \(address) is no longer an address of this machine"))
        #expect(harness.shutDown())
    }

    /// To a multicast group the sink sends with loopback off: a socket on this machine that joined
    /// the group (a plugin's could) hears none of it, where an ordinary sender's datagram reaches it.
    @Test func aMulticastGroupIsNotLoopedBackToThisMachine() throws {
        let group = "239.255.77.\(Int.random(in: 1...254))"
        let receiver = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(receiver) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(receiver, $0, length) == 0 && getsockname(receiver, $0, &length) == 0 } }
        try #require(bound, "\(String(cString: strerror(errno)))")
        let port = Int(UInt16(bigEndian: address.sin_port))
        var membership = ip_mreq(imr_multiaddr: in_addr(s_addr: inet_addr(group)), imr_interface: in_addr(s_addr: 0))
        try #require(setsockopt(receiver, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &membership, socklen_t(MemoryLayout<ip_mreq>.size)) == 0,
                     "joining \(group): \(String(cString: strerror(errno)))")
        var patience = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &patience, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 2048)

        // An ordinary sender's datagram to the group reaches the member on this machine.
        let ordinary = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(ordinary) }
        var destination = sockaddr_in()
        destination.sin_family = sa_family_t(AF_INET)
        destination.sin_port = UInt16(port).bigEndian
        destination.sin_addr.s_addr = inet_addr(group)
        let sent = withUnsafePointer(to: &destination) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            sendto(ordinary, "ping", 4, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        try #require(sent == 4, "sending to \(group): \(String(cString: strerror(errno)))")
        try #require(recv(receiver, &buffer, buffer.count, 0) == 4, "this machine loops multicast back to its own members")

        let dir = TemporaryDirectory()
        let harness = try StreamingHarness(freewheel: false, sinks: ["rtp://\(group):\(port)?sdp=\(dir.path)/group.sdp"])
        try playTone(harness)
        let sink = try #require(harness.sink("rtp://"))
        #expect(sink.status.packets >= 40 && sink.status.errors == 0, "\(sink.status)")
        var heard = 0
        while recv(receiver, &buffer, buffer.count, 0x40 /* MSG_DONTWAIT */) > 0 { heard += 1 }
        #expect(heard == 0, "a member of the group on this machine heard \(heard) of the sink's datagrams")
        // RFC 4566 §5.7: an IPv4 group carries its TTL.
        #expect(try String(contentsOfFile: dir.path + "/group.sdp", encoding: .utf8).contains("c=IN IP4 \(group)/1\r\n"))
        #expect(harness.shutDown())
    }

    @Test func datagramsCarryRFC7587Headers() throws {
        let receiverLoop = try EventLoop()
        let receiver = try UDPSocket(loop: receiverLoop)
        try receiver.bind(SocketAddress(host: "127.0.0.1", port: 0))
        var datagrams: [[UInt8]] = []
        try receiver.startReceiving { datagrams.append($0) }
        let port = try #require(receiver.localAddress?.port)

        let harness = try StreamingHarness(freewheel: true, seconds: 1, sinks: ["rtp://127.0.0.1:\(port)"])
        try harness.load(Paths.toneBundle)
        try harness.runtime.focus.play(pluginID: "org.deck.tone", item: "sine-440")
        try harness.start()
        #expect(harness.runUntilFinished())
        turnLoop(receiverLoop, seconds: 5) { datagrams.count >= 51 }

        // 1 s of 20 ms frames plus one frame flushing the encoder's delay.
        #expect(datagrams.count == 51)
        let headers = datagrams.map { bytes in
            (version: bytes[0] >> 6, marker: bytes[1] >> 7, payloadType: bytes[1] & 0x7f,
             sequence: UInt16(bytes[2]) << 8 | UInt16(bytes[3]),
             timestamp: bytes[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) },
             ssrc: bytes[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        #expect(headers.allSatisfy { $0.version == 2 && $0.payloadType == 96 })
        #expect(headers.map(\.marker) == [1] + Array(repeating: 0, count: 50))
        #expect(Set(headers.map(\.ssrc)).count == 1)
        for (previous, next) in zip(headers, headers.dropFirst()) {
            #expect(next.sequence == previous.sequence &+ 1)
            #expect(next.timestamp == previous.timestamp &+ 960)
        }
        #expect(datagrams.allSatisfy { $0.count > 12 + 2 })
        // Each payload is one 20 ms stereo Opus frame (RFC 6716 TOC: config 31 = CELT fullband
        // 20 ms, stereo bit set, code 0 = one frame).
        #expect(datagrams.allSatisfy { $0[12] >> 3 == 31 && ($0[12] >> 2) & 1 == 1 && $0[12] & 3 == 0 })
        receiver.close()
    }

    @Test func aMissingSDPFolderIsRefusedWithTheReason() throws {
        let harness = try StreamingHarness(freewheel: true)
        #expect(throws: SinkError.cannotOpen("rtp://127.0.0.1:5004?pt=96&sdp=/nonexistent/s.sdp",
                                             "cannot write the SDP file /nonexistent/s.sdp: No such file or directory")) {
            try harness.runtime.output.addSink("rtp://127.0.0.1:5004?sdp=/nonexistent/s.sdp")
        }
    }
}
