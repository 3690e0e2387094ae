import DeckTestSupport
import Foundation
import Testing

/// deckd under systemd (`Type=notify`, `WatchdogSec`): what it says on `NOTIFY_SOCKET`, read by a
/// listener speaking sd_notify's protocol (one datagram of `NAME=value` lines each).
@Suite struct ServiceNotifierTests {
    /// A datagram socket standing in for systemd's notify socket.
    final class NotifyListener {
        let path: String
        private let socket: Int32

        init(path: String) throws {
            self.path = path
            socket = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                path.utf8CString.withUnsafeBytes { raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(raw.count - 1))) }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard socket >= 0, bound == 0 else { throw CommandFailure(description: "cannot bind \(path)") }
        }

        deinit { close(socket) }

        /// The messages that arrive within `seconds`.
        func messages(for seconds: Double) -> [String] {
            var found: [String] = []
            let end = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while Date() < end {
                var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, Int32(max(1, end.timeIntervalSinceNow * 1000))) > 0 else { continue }
                let count = recv(socket, &buffer, buffer.count, 0)
                if count > 0 { found.append(String(decoding: buffer[..<count], as: UTF8.self)) }
            }
            return found
        }
    }

    private func daemon(_ dir: TemporaryDirectory, listener: NotifyListener, defines: [String] = []) throws -> DeckdProcess {
        try FileManager.default.createDirectory(atPath: dir.path + "/plugins", withIntermediateDirectories: true)
        try Fixture.app(in: dir.path + "/plugins", "App", id: "org.example.app", defines: defines)
        return try DeckdProcess(["--plugins", dir.path + "/plugins", "--state", "none", "--isolation", "inline"],
                                environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "200000"])
    }

    @Test func readyStatusWatchdogReloadingAndStoppingReachSystemd() throws {
        let dir = TemporaryDirectory()
        let listener = try NotifyListener(path: dir.path + "/notify")
        let deckd = try daemon(dir, listener: listener)
        let first = listener.messages(for: 1.5)
        let ready = try #require(first.first { $0.contains("READY=1") }, "\(first)\n\(deckd.log)")
        #expect(ready.contains("STATUS=1 app(s), 0 refused; output "), "\(ready)")
        #expect(ready.contains("MAINPID=\(deckd.process.processIdentifier)"))
        // Half of WatchdogSec (200 ms): a ping every 100 ms while the loop and the audio turn.
        #expect(first.filter { $0.contains("WATCHDOG=1") }.count >= 5, "\(first)")
        kill(deckd.process.processIdentifier, SIGHUP)
        let reload = listener.messages(for: 0.5)
        let reloading = try #require(reload.firstIndex { $0.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") }, "\(reload)")
        #expect(reload[(reloading + 1)...].contains { $0.hasPrefix("READY=1\nSTATUS=") }, "\(reload)")
        #expect(deckd.stop() == 0)
        #expect(listener.messages(for: 0.3).contains("STOPPING=1\nSTATUS=stopping"))
    }

    /// A notify socket that cannot be reached is said once in the log: a Type=notify unit would
    /// otherwise time out starting with no word why.
    @Test func aNotifySocketThatCannotBeReachedIsLoggedOnce() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/plugins", withIntermediateDirectories: true)
        let deckd = try DeckdProcess(["--plugins", dir.path + "/plugins", "--state", "none", "--isolation", "inline"],
                                     environment: ["NOTIFY_SOCKET": dir.path + "/absent", "WATCHDOG_USEC": "200000"])
        let warning = "cannot notify the service manager at NOTIFY_SOCKET=\"\(dir.path)/absent\": No such file or directory"
        #expect(deckd.waitForLog(warning), "\(deckd.log)")
        usleep(500_000)  // five watchdog pings, each failing
        #expect(deckd.log.components(separatedBy: warning).count == 2, "\(deckd.log)")
        #expect(deckd.stop() == 0)
    }

    /// A plugin that never returns from a loop call (inline, so it holds deckd's loop): the
    /// pings stop, and systemd's watchdog would restart deckd. On a busy machine a ping may go
    /// out between ready and the stuck call; none does for the second after.
    @Test func aStuckLoopStopsTheWatchdogPings() throws {
        let dir = TemporaryDirectory()
        let listener = try NotifyListener(path: dir.path + "/notify")
        let deckd = try daemon(dir, listener: listener, defines: ["FIXTURE_CALLBACK_BLOCKS"])
        var messages: [String] = []
        for _ in 0..<50 where !messages.contains(where: { $0.contains("READY=1") }) { messages += listener.messages(for: 0.1) }
        #expect(messages.contains { $0.contains("READY=1") }, "\(messages)\n\(deckd.log)")
        messages += listener.messages(for: 0.3)
        let later = listener.messages(for: 1)
        #expect(!later.contains { $0.contains("WATCHDOG=1") }, "\(messages) then \(later)")
        _ = deckd.stop(signal: SIGKILL, seconds: 5)
    }

    @Test func withoutANotifySocketNothingIsSent() throws {
        let dir = TemporaryDirectory()
        let listener = try NotifyListener(path: dir.path + "/notify")
        try FileManager.default.createDirectory(atPath: dir.path + "/plugins", withIntermediateDirectories: true)
        let deckd = try DeckdProcess(["--plugins", dir.path + "/plugins", "--state", "none"], environment: ["WATCHDOG_USEC": "200000"])
        #expect(deckd.waitForLog("deckd: ready"))
        #expect(listener.messages(for: 0.5).isEmpty)
        #expect(deckd.stop() == 0)
    }
}
