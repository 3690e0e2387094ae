import DeckTestSupport
import Foundation
import Testing
@testable import DeckBase

/// The kernel names the uid and inode of the socket at the other end of a local TCP connection:
/// sock_diag in one lookup, and /proc/net/tcp, its fallback, the same.
@Suite struct LoopbackPeerTests {
    @Test func theOtherEndsUidAndInodeAreFoundInOneLookupAsInTheTable() throws {
        let loop = try EventLoop()
        let server = try StreamServer(loop: loop, address: .tcp(try SocketAddress(host: "127.0.0.1", port: 0)))
        var accepted: StreamConnection?
        try server.listen { accepted = $0 }
        let client = LoopbackClient.connect(port: try #require(server.localAddress).port)
        defer { close(client) }
        #expect(turnLoop(loop) { accepted != nil })
        let ours = try #require(accepted?.localAddress), theirs = try #require(accepted?.peerAddress)
        let asked = LoopbackPeer.lookup(local: ours, peer: theirs)
        #expect(asked.answered, "the kernel offers sock_diag")
        let found = try #require(asked.socket)
        #expect(found.uid == geteuid())
        #expect(LoopbackPeer.holds(getpid(), socket: found.inode), "this process holds the client's socket")
        let listed = try #require(LoopbackPeer.tableEntry(local: ours, peer: theirs))
        #expect(listed == found)
        #expect(LoopbackPeer.socket(local: ours, peer: theirs)?.inode == found.inode)
        let elsewhere = try SocketAddress(host: "127.0.0.1", port: 1)
        let absent = LoopbackPeer.lookup(local: ours, peer: elsewhere)
        #expect(absent.answered && absent.socket == nil, "no such connection")
        #expect(LoopbackPeer.tableEntry(local: ours, peer: elsewhere) == nil)
        accepted?.close()
        server.close()
    }
}
