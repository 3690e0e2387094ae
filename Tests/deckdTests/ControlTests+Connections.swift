import DeckTestSupport
import Foundation
import Testing

/// How many control clients deckd takes: the connection limit, and the descriptors it keeps free;
/// how long deckctl waits for a deckd that takes no connection or gives no answer; a socket path
/// another user's program holds.
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

    /// A deckd stopped (SIGSTOP) fails a command once `--timeout` passes instead of holding it for
    /// ever, and answers it again once continued; a socket that takes no new connection fails the
    /// connect the same way. A timeout that is not seconds is a usage error.
    @Test func aStoppedDeckdFailsACommandWhenItsTimeoutPasses() throws {
        let deckd = try daemon()
        #expect(try ctl(deckd, ["status"]).status == 0)
        kill(deckd.process.processIdentifier, SIGSTOP)
        let started = Date()
        let stuck = try ctl(deckd, ["--timeout", "0.5", "volume"])
        let waited = Date().timeIntervalSince(started)
        kill(deckd.process.processIdentifier, SIGCONT)
        #expect(stuck == (1, "deckctl: deckd did not answer volume.get within 0.5 s: is it stopped or stuck? (--timeout SECONDS waits longer, 0 for ever)\n"))
        #expect(waited >= 0.5 && waited < 5, "waited \(waited) s")
        #expect(try ctl(deckd, ["--timeout", "0", "volume", "media"]).output.hasPrefix("media  40/40"))
        for text in ["", "-1", "1e3", "86401", ".5", "5.", "0x1", "99999999999999999999"] {
            #expect(try ctl(deckd, ["--timeout", text, "status"]) == (2, "deckctl: --timeout needs seconds from 0 to 86400, such as 5 or 2.5 (0 waits for ever)\n"
                                                                        + "Try 'deckctl --help' for more information.\n"), "--timeout \(text)")
        }
        #expect(deckd.stop() == 0)

        // A listening socket whose one place in the queue is taken: the next connect waits for a place.
        let dir = TemporaryDirectory(), path = dir.path + "/full.sock"
        let server = boundSocket(at: path)
        #expect(listen(server, 0) == 0)
        let queued = LineClient(path: path)
        let full = try runProgram(deckctl, ["--socket", path, "--timeout", "0.5", "status"])
        #expect(full.status == 3 && full.output.hasPrefix("deckctl: cannot connect to \(path): not accepted within 500 ms: "
                                                          + "the server takes no new connections (is it stopped or stuck?)"), "\(full.output)")
        queued.close()
        close(server)
    }

    /// A socket another user's program answers on (at the shared /tmp default, say) is named as
    /// that, not as another deckd, and left alone.
    @Test func aSocketAnotherUserServesIsNamedAsTheirs() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/theirs.sock"
        let fd = boundSocket(at: path)
        defer { close(fd) }
        #expect(listen(fd, 4) == 0 && lchown(path, 65_534, 65_534) == 0)
        let refused = try runProgram(Paths.binDir + "/deckd", ["--plugins", firstParty, "--socket", path, "--state", "none"], timeout: 20)
        #expect(refused.status == 1)
        #expect(refused.output.contains("a program of uid 65534, not yours (uid \(geteuid())), answers on \(path); "
                                        + "pass --socket PATH in a folder of your own"), "\(refused.output)")
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_uid == 65_534, "left as it was")
    }
}
