import DeckBase
import Glibc

/// `rtp://HOST:PORT?pt=96&sdp=PATH`: one Opus packet per RTP datagram (RFC 7587), 48 kHz timestamps,
/// a random SSRC and sequence base (new for each run of the output), the marker bit on the first
/// packet after a gap, and an SDP file a player can open. To an address of this machine (one it
/// has now, not only when the sink opened), a packet goes only while the socket that would
/// receive it is not a plugin's; to a multicast group, not to this machine's sockets at all (a
/// plugin's could join it). Loop-thread-confined.
public final class RTPSink: Sink {
    public let uri: String
    public private(set) var status = SinkStatus()
    public private(set) var ssrc = UInt32.random(in: 0...UInt32.max)
    private let socket: UDPSocket
    private let target: SocketAddress
    private let payloadType: UInt8
    private let dtx: Bool
    private let logger: Logger
    private let listeners: ListenerGate
    /// The port the socket is bound to.
    private let boundPort: Int
    /// Told when this machine gains or loses an address, for a target that is neither loopback
    /// nor a group (an interface's address may come or go while the sink plays).
    private let addressChanges: AddressChanges?
    /// Our end as the receiver sees it while the target is this machine's (nil while it is
    /// not), and the netlink socket its receiver is asked through.
    private var sender: SocketAddress?
    private var diagnostics: SocketDiagnostics?
    /// The receiving socket last looked at on this machine, and why it is refused (nil: allowed).
    private var receiver: (inode: UInt64, refusal: String?)?
    private var sequence = UInt16.random(in: 0...UInt16.max)
    private var timestampBase = UInt32.random(in: 0...UInt32.max)
    private var expectedSampleIndex: Int64?

    init(host: String, port: Int, payloadType: Int, sdpPath: String?, context: SinkContext) throws(SinkError) {
        uri = SinkURI.rtp(host: host, port: port, payloadType: payloadType, sdpPath: sdpPath).description
        self.payloadType = UInt8(payloadType)
        dtx = context.encoder.dtx
        logger = context.logger
        listeners = context.listeners
        do {
            // Datagrams to 0.0.0.0 or :: reach this machine's loopback, and to an IPv4-mapped address
            // IPv4's sockets: sent there, and checked as such.
            let named = try SocketAddress(host: host, port: port), plain = named.unmapped ?? named
            target = plain.isUnspecified ? try SocketAddress(host: plain.isIPv6 ? "::1" : "127.0.0.1", port: port) : plain
            socket = try UDPSocket(loop: context.loop)
        } catch {
            throw .cannotOpen(uri, error.description)
        }
        guard !target.isBroadcast else {
            socket.close()
            throw .cannotOpen(uri, RTPSink.notBroadcast)
        }
        addressChanges = target.isLoopback || target.isMulticast ? nil : AddressChanges()
        do {
            // Bound now, so its port is known before the first packet.
            boundPort = try RTPSink.bind(socket, toward: target)
            if target.isMulticast { try socket.loopMulticast(false) }
        } catch {
            socket.close()
            throw .cannotOpen(uri, error.description)
        }
        followTarget()
        if let sdpPath {
            let sdp = RTPSink.sessionDescription(target: target, payloadType: payloadType, context: context)
            if let problem = AtomicFile.write(Array(sdp.utf8), to: sdpPath, mode: 0o644) {
                socket.close()
                throw .cannotOpen(uri, "cannot write the SDP file \(sdpPath): \(problem)")
            }
        }
    }

    static let notBroadcast = "an RTP sink sends to one host or a multicast group (224.0.0.0/4, ff00::/8), not to a broadcast address"

    public func deliver(_ packet: EncodedPacket) {
        // DTX frames (1–2 bytes) are not sent; the receiver conceals the gap (RFC 7587 §3.1.3).
        status.finished = false
        if dtx && packet.bytes.count <= 2 { return }
        if let refusal = refusal() {
            _ = status.count(error: "not sent: \(refusal)")
            return
        }
        let marker = expectedSampleIndex != packet.sampleIndex
        expectedSampleIndex = packet.sampleIndex + Int64(packet.samples)
        let timestamp = timestampBase &+ UInt32(truncatingIfNeeded: packet.sampleIndex)
        var datagram: [UInt8] = [0x80, (marker ? 0x80 : 0) | payloadType, UInt8(sequence >> 8), UInt8(sequence & 0xff)]
        datagram += withUnsafeBytes(of: timestamp.bigEndian, Array.init)
        datagram += withUnsafeBytes(of: ssrc.bigEndian, Array.init)
        datagram += packet.bytes
        sequence &+= 1
        do {
            try socket.send(datagram, to: target)
            status.packets += 1
            status.bytes += datagram.count
        } catch {
            // The kernel refuses a subnet's broadcast address (192.168.1.255) with EACCES.
            let problem = error.code == -EACCES ? "\(error): is it a broadcast address? \(RTPSink.notBroadcast)" : error.description
            if status.count(error: problem) { logger.warning("sinks", event: .sinkFailed, "\(uri): \(problem) (\(status.errors) so far)") }
        }
    }

    /// The run ended: the next one is a new RTP stream (new SSRC, sequence and timestamp bases).
    public func finish() {
        expectedSampleIndex = nil
        ssrc = UInt32.random(in: 0...UInt32.max)
        sequence = UInt16.random(in: 0...UInt16.max)
        timestampBase = UInt32.random(in: 0...UInt32.max)
        status.finished = true
    }

    public func close() { socket.close() }

    /// Why the socket on this machine that would receive the next packet may not (a plugin's),
    /// asked of the kernel at each packet and of the runtime when that socket is a new one
    /// (logged when it changes the verdict).
    private func refusal() -> String? {
        guard let gate = listeners.receiverRefusal else { return nil }
        if let addressChanges, addressChanges.happened(), followTarget() {
            logger.info("sinks", sender != nil
                ? "\(uri): \(target.host) is now an address of this machine: the socket receiving there is checked at each packet"
                : "\(uri): \(target.host) is no longer an address of this machine")
        }
        guard let sender else { return nil }
        guard let found = LoopbackPeer.datagramReceiver(sender: sender, target: target, through: diagnostics) else { return nil }
        if let receiver, receiver.inode == found.inode { return receiver.refusal }
        let refusal = gate(found, "the socket receiving \(target)"), wasRefused = receiver?.refusal != nil
        receiver = (found.inode, refusal)
        if let refusal { logger.warning("sinks", event: .sinkFailed, "\(uri): not sending: \(refusal)") }
        else if wasRefused { logger.info("sinks", "\(uri): sending again: the socket receiving \(target) is not a plugin's") }
        return refusal
    }

    /// Sets `sender` (and the netlink socket to ask through) while the target is one of this
    /// machine's addresses, clears it while it is not; whether that changed.
    @discardableResult
    private func followTarget() -> Bool {
        let local = target.isOnThisMachine
        guard local != (sender != nil) else { return false }
        sender = local ? try? SocketAddress(host: target.host, port: boundPort) : nil
        receiver = nil
        if local && diagnostics == nil { diagnostics = SocketDiagnostics() }
        return true
    }

    /// Binds `socket` to a port of its own on every address; the port.
    private static func bind(_ socket: UDPSocket, toward target: SocketAddress) throws(LoopError) -> Int {
        try socket.bind(try SocketAddress(host: target.isIPv6 ? "::" : "0.0.0.0", port: 0))
        guard let bound = socket.localAddress else { throw LoopError("getsockname", code: -EBADF) }
        return bound.port
    }

    /// An SDP a receiver (ffmpeg, VLC, GStreamer) opens to listen for this stream.
    static func sessionDescription(target: SocketAddress, payloadType: Int, context: SinkContext) -> String {
        let family = target.isIPv6 ? "IP6" : "IP4"
        // An IPv4 group's TTL (RFC 4566 §5.7): the kernel's default, 1, as the sink leaves it.
        let connection = target.isMulticast && !target.isIPv6 ? "\(target.host)/1" : target.host
        let ptime = context.frameSize.milliseconds
        return """
            v=0\r
            o=- \(UInt32.random(in: 1...UInt32.max)) 1 IN \(family) \(target.host)\r
            s=Deck\r
            c=IN \(family) \(connection)\r
            t=0 0\r
            m=audio \(target.port) RTP/AVP \(payloadType)\r
            a=rtpmap:\(payloadType) opus/48000/2\r
            a=fmtp:\(payloadType) sprop-stereo=1;stereo=1;maxplaybackrate=48000;useinbandfec=\(context.encoder.inbandFEC ? 1 : 0);usedtx=\(context.encoder.dtx ? 1 : 0)\r
            a=ptime:\(ptime == ptime.rounded() ? String(Int(ptime)) : String(ptime))\r

            """
    }
}
