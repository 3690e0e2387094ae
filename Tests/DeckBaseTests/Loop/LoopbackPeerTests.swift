import DeckTestSupport
import Foundation
import Testing
@testable import DeckBase

/// The kernel names the uid and inode of the socket at the other end of a local TCP connection,
/// and of the socket a datagram to this machine reaches: sock_diag in one lookup, and
/// /proc/net/tcp and udp, its fallback, the same.
@Suite struct LoopbackPeerTests {
    /// On loopback, or dual-stack (its IPv4 peers mapped), from loopback or an interface's address.
    @Test(arguments: [("127.0.0.1", false), ("127.0.0.1", true), ("::", false), ("::", true)])
    func theOtherEndsUidAndInodeAreFoundInOneLookupAsInTheTable(listening: String, fromInterface: Bool) throws {
        let loop = try EventLoop()
        let server = try StreamServer(loop: loop, address: .tcp(try SocketAddress(host: listening, port: 0)))
        var accepted: StreamConnection?
        try server.listen { accepted = $0 }
        var from: String?
        if fromInterface {
            let interface: String = try #require(LoopbackClient.interfaceAddress(), "an interface with an IPv4 address")
            from = interface
        }
        let client = LoopbackClient.connect(port: try #require(server.localAddress).port, from: from)
        defer { close(client) }
        #expect(turnLoop(loop) { accepted != nil })
        let ours = try #require(accepted?.localAddress), theirs = try #require(accepted?.peerAddress)
        let asked = LoopbackPeer.lookup(transport: Int32(IPPROTO_TCP), source: theirs, destination: ours)
        #expect(asked.answered, "the kernel offers sock_diag")
        let found = try #require(asked.socket)
        #expect(found.uid == geteuid())
        #expect(LoopbackPeer.holds(getpid(), socket: found.inode), "this process holds the client's socket")
        let listed = try #require(LoopbackPeer.tcpTableEntry(local: ours, peer: theirs))
        #expect(listed == found)
        #expect(LoopbackPeer.socket(local: ours, peer: theirs)?.inode == found.inode)
        let elsewhere = try SocketAddress(host: listening == "::" ? "::ffff:127.0.0.1" : "127.0.0.1", port: 1)
        let absent = LoopbackPeer.lookup(transport: Int32(IPPROTO_TCP), source: elsewhere, destination: ours)
        #expect(absent.answered && absent.socket == nil, "no such connection")
        #expect(LoopbackPeer.tcpTableEntry(local: ours, peer: elsewhere) == nil)
        accepted?.close()
        server.close()
    }

    /// A datagram sent to this machine reaches the socket bound to its address, else the one bound
    /// to its port on every address; sock_diag and /proc/net/udp name the same one.
    @Test(arguments: [("127.0.0.1", "127.0.0.1"), ("0.0.0.0", "127.0.0.1"), ("::1", "::1"), ("::", "::1")])
    func theSocketADatagramReachesIsFoundInOneLookupAsInTheTable(bound: String, loopback: String) throws {
        let loop = try EventLoop()
        let receiver = try UDPSocket(loop: loop)
        defer { receiver.close() }
        try receiver.bind(try SocketAddress(host: bound, port: 0))
        let port = try #require(receiver.localAddress).port
        let target = try SocketAddress(host: loopback, port: port), sender = try SocketAddress(host: loopback, port: 40_000)
        let asked = LoopbackPeer.lookup(transport: Int32(IPPROTO_UDP), source: sender, destination: target)
        #expect(asked.answered, "the kernel offers sock_diag for UDP")
        let found = try #require(asked.socket)
        #expect(found.uid == geteuid())
        #expect(LoopbackPeer.holds(getpid(), socket: found.inode), "this process holds the receiver")
        #expect(try #require(LoopbackPeer.udpTableEntry(target: target)) == found)
        #expect(LoopbackPeer.datagramReceiver(sender: sender, target: target)?.inode == found.inode)
        let kept = try #require(SocketDiagnostics())
        let nobody = try SocketAddress(host: loopback, port: port == 1 ? 2 : 1)
        for _ in 0..<2 {  // one netlink socket, asked again and again
            #expect(LoopbackPeer.datagramReceiver(sender: sender, target: target, through: kept)?.inode == found.inode)
            #expect(LoopbackPeer.datagramReceiver(sender: sender, target: nobody, through: kept) == nil)
        }
        #expect(LoopbackPeer.datagramReceiver(sender: sender, target: nobody) == nil, "nothing bound there")
        #expect(LoopbackPeer.udpTableEntry(target: nobody) == nil)
    }
}
