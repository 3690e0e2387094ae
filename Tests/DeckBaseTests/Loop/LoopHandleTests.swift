import CProcess
import Foundation
import Synchronization
import Testing
@testable import DeckBase
import DeckTestSupport

/// The libuv owners: each delivers its events on the loop and closes its handle before release.
@Suite struct LoopHandleTests {
    @Test func aTimerFiresOnceAndARepeatingTimerUntilStopped() throws {
        let loop = try EventLoop()
        let once = try LoopTimer(loop: loop)
        let repeating = try LoopTimer(loop: loop)
        var onceCount = 0, repeatCount = 0
        once.start(after: 1) { onceCount += 1 }
        repeating.start(after: 1, repeat: 1) {
            repeatCount += 1
            if repeatCount == 3 { repeating.stop() }
        }
        loop.run()  // returns once both timers are inactive
        #expect(onceCount == 1)
        #expect(repeatCount == 3)
        once.close()
        repeating.close()
        #expect(once.isClosed)
    }

    @Test func aClosedTimerNeverFires() throws {
        let loop = try EventLoop()
        let timer = try LoopTimer(loop: loop)
        var fired = false
        timer.start(after: 1) { fired = true }
        timer.close()
        loop.run()
        #expect(!fired)
    }

    @Test func aClosedTimerLetsGoOfWhatItsActionCaptured() throws {
        final class Captured {}
        let loop = try EventLoop()
        let timer = try LoopTimer(loop: loop)
        weak var released: Captured?
        do {
            let captured = Captured()
            released = captured
            // The action holds the timer too, the cycle a timer that closes itself makes.
            timer.start(after: 60_000) { withExtendedLifetime((captured, timer)) {} }
        }
        #expect(released != nil)
        timer.close()
        #expect(released == nil)
    }

    @Test func aSignalIsDeliveredOnTheLoopThread() throws {
        let loop = try EventLoop()
        let watcher = try SignalWatcher(loop: loop)
        var received: Int32 = 0
        try watcher.start(signal: SIGUSR2) { number in
            received = number
            #expect(loop.thread.isCurrent)
            watcher.close()
        }
        kill(getpid(), SIGUSR2)
        loop.run()
        #expect(received == SIGUSR2)
    }

    @Test func doorbellRingsFromOtherThreadsCoalesceIntoLoopCallbacks() throws {
        let loop = try EventLoop()
        var callbacks = 0
        let doorbell = try AsyncDoorbell(loop: loop) {
            callbacks += 1
            #expect(loop.thread.isCurrent)
        }
        let ringer = doorbell.ringer
        // 100 rings from another thread while the loop is not turning: one callback for all.
        let done = Atomic<Bool>(false)
        Thread {
            for _ in 0..<100 { ringer.ring() }
            done.store(true, ordering: .releasing)
        }.start()
        while !done.load(ordering: .acquiring) { usleep(1000) }
        #expect(turnLoop(loop, seconds: 5) { callbacks == 1 })
        loop.runNoWait()
        #expect(callbacks == 1)
        // A later ring is a later callback; once closed, rings are refused.
        #expect(ringer.ring())
        #expect(turnLoop(loop, seconds: 5) { callbacks == 2 })
        doorbell.close()
        #expect(ringer.ring() == false)
        loop.run()
        #expect(callbacks == 2)
    }

    /// A ring that lands while the loop answers the one before is never lost: the loop always sees
    /// the last thing queued before the last ring.
    @Test func aRingWhileTheLoopAnswersIsNeverLost() throws {
        let loop = try EventLoop()
        let queued = Atomic<Int>(0)
        var seen = 0
        let doorbell = try AsyncDoorbell(loop: loop) { seen = queued.load(ordering: .acquiring) }
        let ringer = doorbell.ringer
        let total = 200_000
        Thread {
            for _ in 0..<total {
                queued.add(1, ordering: .releasing)
                ringer.ring()
            }
        }.start()
        #expect(turnLoop(loop, seconds: 20) { seen == total })
        doorbell.close()
        loop.run()
    }

    /// Closing while another thread rings: every ring after the close is refused and writes
    /// nothing, even to a descriptor that took the doorbell's number since.
    @Test func aDoorbellClosedWhileRingingNeverWritesAgain() throws {
        let loop = try EventLoop()
        let doorbell = try AsyncDoorbell(loop: loop) {}
        let ringer = doorbell.ringer
        let refused = Atomic<Int>(0)
        let ringing = Thread {
            while ringer.ring() {}
            for _ in 0..<100_000 where !ringer.ring() { refused.add(1, ordering: .relaxed) }
        }
        ringing.start()
        usleep(20_000)
        doorbell.close()
        // The lowest free number, so almost always the doorbell's (tests in parallel may free a
        // lower one first): a late ring would make it readable.
        let probe = eventfd(0, Int32(EFD_NONBLOCK))
        #expect(probe >= 0)
        #expect(turnLoop(loop, seconds: 10) { refused.load(ordering: .relaxed) == 100_000 })
        var count: eventfd_t = 0
        #expect(eventfd_read(probe, &count) == -1 && errno == EAGAIN)
        close(probe)
        loop.run()
    }

    /// After the first wake-up, epoll reports each ring as an edge: the loop takes it without a
    /// `read`, so the eventfd's counter keeps every later write.
    @Test func aDoorbellAnswersRingsAfterTheFirstWithoutReadingItsCounter() throws {
        let loop = try EventLoop()
        var callbacks = 0
        let doorbell = try AsyncDoorbell(loop: loop) { callbacks += 1 }
        for expected in 1...5 {
            #expect(doorbell.ringer.ring())
            #expect(turnLoop(loop, seconds: 5) { callbacks == expected })
        }
        #expect(try eventfdCount(doorbell.ringer.descriptor) == 4)
        // The counter it leaves wakes no one: without a ring, no callback.
        for _ in 0..<20 { loop.runNoWait() }
        #expect(callbacks == 5)
        doorbell.close()
        loop.run()
        #expect(callbacks == 5)
    }

    /// The counter of eventfd `descriptor`, as the kernel shows it (hexadecimal) in fdinfo.
    private func eventfdCount(_ descriptor: Int32) throws -> UInt64? {
        let info = try String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8)
        let line = info.split(separator: "\n").first { $0.hasPrefix("eventfd-count:") }
        return line.flatMap { UInt64($0.dropFirst("eventfd-count:".count).trimmingCharacters(in: .whitespaces), radix: 16) }
    }

    @Test func aUnixStreamServerEchoesToAClient() throws {
        let loop = try EventLoop()
        let dir = TemporaryDirectory()
        let path = dir.path + "/echo.sock"
        let server = try StreamServer(loop: loop, address: .unix(path: path))
        var connections: [StreamConnection] = []
        try server.listen { connection in
            connections.append(connection)
            connection.startReading { event in
                switch event {
                case .data(let bytes): connection.write(bytes)
                case .end, .failed: connection.close(); server.close()
                }
            }
        }
        let reply = Mutex<[UInt8]>([])
        let client = Thread {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                path.utf8CString.withUnsafeBytes { raw.copyMemory(from: $0) }
            }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            _ = "ping".withCString { send(fd, $0, 4, 0) }
            var buffer = [UInt8](repeating: 0, count: 4)
            let count = recv(fd, &buffer, 4, Int32(MSG_WAITALL))
            reply.withLock { $0 = Array(buffer.prefix(max(count, 0))) }
            close(fd)
        }
        client.start()
        loop.run()
        #expect(reply.withLock { $0 } == Array("ping".utf8))
    }

    @Test func aTCPServerOnPortZeroReportsItsPort() throws {
        let loop = try EventLoop()
        let server = try StreamServer(loop: loop, address: .tcp(SocketAddress(host: "127.0.0.1", port: 0)))
        try server.listen { _ in }
        let address = try #require(server.localAddress)
        #expect(address.host == "127.0.0.1")
        #expect(address.port > 0)
        #expect(address.isLoopback)
        server.close()
    }

    @Test(arguments: [("239.255.0.1", true), ("224.0.0.251", true), ("ff02::fb", true), ("ff15::1", true),
                      ("223.255.255.255", false), ("240.0.0.1", false), ("127.0.0.1", false), ("fe80::1", false), ("::1", false)])
    func multicastGroupsAreTold(host: String, isMulticast: Bool) throws {
        #expect(try SocketAddress(host: host, port: 5004).isMulticast == isMulticast)
    }

    /// A dual-stack socket names its IPv4 peers mapped (`::ffff:127.0.0.1`), and one address has
    /// many spellings: each is what its bytes are.
    @Test(arguments: ["127.0.0.1", "127.3.2.1", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "::FFFF:127.0.0.1", "::ffff:7f00:1"])
    func everySpellingOfLoopbackIsLoopback(host: String) throws {
        let address = try SocketAddress(host: host, port: 1)
        #expect(address.isLoopback && address.isOnThisMachine && !address.isUnspecified && !address.isMulticast)
    }

    @Test func mappedAndUnspecifiedAddressesAreWhatTheirBytesSay() throws {
        #expect(try SocketAddress(host: "::ffff:7f00:1", port: 9).unmapped?.description == "127.0.0.1:9")
        #expect(try SocketAddress(host: "::ffff:192.0.2.200", port: 9).unmapped?.description == "192.0.2.200:9")
        #expect(try SocketAddress(host: "::1", port: 9).unmapped == nil && SocketAddress(host: "127.0.0.1", port: 9).unmapped == nil)
        for host in ["0.0.0.0", "::", "0:0:0:0:0:0:0:0", "::ffff:0.0.0.0"] { #expect(try SocketAddress(host: host, port: 1).isUnspecified, "\(host)") }
        #expect(try !SocketAddress(host: "::ffff:192.0.2.200", port: 1).isLoopback)
        #expect(try !SocketAddress(host: "::ffff:198.51.100.7", port: 1).isOnThisMachine)
        #expect(try SocketAddress(host: "::ffff:239.1.2.3", port: 1).isMulticast)
    }

    @Test func bindingAnAddressInUseFailsWithLibuvsMessage() throws {
        let loop = try EventLoop()
        let first = try StreamServer(loop: loop, address: .tcp(SocketAddress(host: "127.0.0.1", port: 0)))
        try first.listen { _ in }
        let port = try #require(first.localAddress?.port)
        #expect {
            let second = try StreamServer(loop: loop, address: .tcp(SocketAddress(host: "127.0.0.1", port: port)))
            try second.listen { _ in }
        } throws: { error in
            (error as? LoopError)?.description.contains("address already in use") == true
        }
        first.close()
    }

    @Test func udpDatagramsArriveOnLoopback() throws {
        let loop = try EventLoop()
        let receiver = try UDPSocket(loop: loop)
        try receiver.bind(SocketAddress(host: "127.0.0.1", port: 0))
        let sender = try UDPSocket(loop: loop)
        var received: [[UInt8]] = []
        try receiver.startReceiving { datagram in
            received.append(datagram)
            if received.count == 2 { receiver.close(); sender.close() }
        }
        let target = try #require(receiver.localAddress)
        try sender.send([1, 2, 3], to: target)
        try sender.send([4], to: target)
        loop.run()
        #expect(received == [[1, 2, 3], [4]])
    }

    /// Pushed back from another thread, a deadline never wakes the loop; left to pass, it fires
    /// once, and cleared (0), never.
    @Test func aDeadlinePushedBackFromAnotherThreadFiresOnlyOnceLeftToPass() throws {
        let loop = try EventLoop()
        let deadline = try LoopDeadline(loop: loop)
        defer {
            deadline.close()
            loop.runNoWait()
        }
        var fired: [Double] = []
        deadline.start { fired.append(MonotonicClock.seconds) }
        let pushing = Mutex(true)
        let pusher = Thread { while pushing.withLock({ $0 }) { deadline.push(nanoseconds: 50_000_000); usleep(10_000) } }
        pusher.start()
        turnLoop(loop, seconds: 0.4) { false }
        #expect(fired.isEmpty, "pushed every 10 ms, a 50 ms deadline never passes")
        pushing.withLock { $0 = false }
        let stopped = MonotonicClock.seconds
        #expect(turnLoop(loop, seconds: 2) { !fired.isEmpty })
        turnLoop(loop, seconds: 0.2) { false }
        #expect(fired.count == 1 && fired[0] - stopped < 0.5, "\(fired.map { $0 - stopped })")
        deadline.push(nanoseconds: 20_000_000)
        deadline.push(nanoseconds: 0)
        turnLoop(loop, seconds: 0.2) { false }
        #expect(fired.count == 1)
    }
}
