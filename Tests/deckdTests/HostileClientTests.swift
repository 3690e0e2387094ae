import DeckTestSupport
import Foundation
import Testing

/// What one client can cost deckd is bounded before the work is done, and given back after.
@Suite struct HostileClientTests {
    let firstParty = Paths.binDir + "/plugins"

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
        let daemon = try DeckdProcess(["--plugins", firstParty, "--play", "org.deck.tone:sine-440"])
        #expect(daemon.waitForLog("deckd: ready"))
        let pid = daemon.process.processIdentifier
        let flooder = UnixLineClient(path: daemon.socket)
        for round in 0..<20 {  // warm up: the allocator's pools exist before the baseline is taken
            flooder.send(line: focusFlood(100, id: round))
            _ = flooder.readLine()
        }
        let before = residentKiB(of: pid)

        let deaf = (0..<20).map { _ in UnixLineClient(path: daemon.socket, receiveBuffer: 4096) }
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

    @Test func aHugeBatchIsRefusedBeforeAnyWorkAndTheLoopKeepsTurning() throws {
        let daemon = try DeckdProcess(["--plugins", firstParty])
        #expect(daemon.waitForLog("deckd: ready"))
        let pid = daemon.process.processIdentifier
        let before = residentKiB(of: pid)
        let client = UnixLineClient(path: daemon.socket)
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
