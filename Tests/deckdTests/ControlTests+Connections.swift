import DeckTestSupport
import Foundation
import Testing

/// How many control clients deckd takes: the connection limit, and the descriptors it keeps free.
extension ControlTests {
    @Test func theConnectionAfterTheLimitIsRefusedWithOverloaded() throws {
        let deckd = try daemon()
        let open = (0..<64).map { _ in LineClient(path: deckd.socket) }
        // Make sure all 64 were accepted before the 65th arrives.
        for client in open { #expect(client.call("runtime.info")?.contains(#""version""#) == true) }
        let extra = LineClient(path: deckd.socket)
        #expect(extra.readLine()?.contains(#""code":-32006"#) == true)
        #expect(deckd.waitForLog("refused a connection: 64 local connections already open (control.maxConnections)"))
        // deckctl shows why rather than a broken pipe.
        let turnedAway = try deckd.deckctl(["status"])
        #expect(turnedAway.status == 1)
        #expect(turnedAway.output.contains("deckctl: -32006 Overloaded: 64 local connections already open (control.maxConnections)"), "\(turnedAway.output)")
        #expect(deckd.stop() == 0)
    }

    /// Under a low `ulimit -n`, clients past the descriptors' reserve are answered Overloaded with
    /// the limit named, and logged; libuv would otherwise accept and close them unseen once none is left.
    @Test func underALowDescriptorLimitClientsAreRefusedNamingIt() throws {
        let deckd = try DeckdProcess([], launcher: ["/bin/sh", "-c", "ulimit -n 64 && exec \"$0\" \"$@\""])
        #expect(deckd.waitForLog("deckd: ready"))
        var open: [LineClient] = [], refusal: String?
        for _ in 0..<64 where refusal == nil {
            let client = LineClient(path: deckd.socket)
            open.append(client)
            let answer = client.call("runtime.info") ?? "no answer"
            if !answer.contains(#""version""#) { refusal = answer }
        }
        #expect(open.count > 1 && open.count < 64, "\(open.count) clients")
        let refused = try #require(refusal)
        #expect(refused.contains(#""code":-32006"#) && refused.contains("is within 8 of the limit of 64 (ulimit -n; LimitNOFILE= in the unit)"), "\(refused)")
        #expect(deckd.waitForLog("refused a connection: file descriptor "), "\(deckd.log)")
        open.forEach { $0.close() }
        #expect(try deckd.deckctl(["status"]).status == 0, "served again once clients left")
        #expect(deckd.stop() == 0)
    }
}
