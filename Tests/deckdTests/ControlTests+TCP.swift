import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

/// The control API over TCP: login with a token, limits that keep the owner in, slow failures.
extension ControlTests {
    /// A deckd that also serves TCP on a free loopback port, with a token file only its user reads.
    func tcpDaemon(_ extra: [String] = [], tokenFile: String = "correct-horse-battery-staple\n") throws -> (DeckdProcess, port: Int, dir: TemporaryDirectory) {
        let dir = TemporaryDirectory()
        try tokenFile.write(toFile: dir.path + "/token", atomically: true, encoding: .utf8)
        chmod(dir.path + "/token", 0o600)
        // A second to log in, not the default three: the tests wait for it to pass.
        try #"{"control": {"loginTimeoutMs": 1000}}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let config = extra.contains("--config") ? [] : ["--config", dir.path + "/deck.json"]
        let deckd = try daemon(extra + ["--tcp", "localhost:0", "--token-file", dir.path + "/token"] + config)
        let logLine = try #require(deckd.log.split(separator: "\n").first { $0.contains("and tcp 127.0.0.1:") })
        let port = try #require(Int(logLine.split(separator: ":").last!.split(separator: " ").first!))
        return (deckd, port, dir)
    }

    @Test func tcpClientsMustLogInFirstWithTheToken() throws {
        let (deckd, port, _) = try tcpDaemon()
        let info = #"{"jsonrpc":"2.0","method":"runtime.info","id":1}"#

        let eager = LineClient(port: port)
        eager.send(line: info)
        #expect(eager.readLine()?.contains(#""code":-32005"#) == true)
        #expect(eager.readLine() == nil)  // refused: disconnected

        let wrong = LineClient(port: port)
        wrong.send(line: #"{"jsonrpc":"2.0","method":"auth.login","params":{"token":"guess"},"id":1}"#)
        #expect(wrong.readLine()?.contains("wrong token") == true)
        #expect(wrong.readLine() == nil)

        let good = LineClient(port: port)
        good.send(line: #"{"jsonrpc":"2.0","method":"auth.login","params":{"token":"correct-horse-battery-staple"},"id":1}"#)
        #expect(good.readLine() == #"{"id":1,"jsonrpc":"2.0","result":true}"#)
        good.send(line: info)
        #expect(good.readLine()?.contains(#""version":"0.1.0""#) == true)

        let idle = LineClient(port: port)
        #expect(idle.readLine() == nil)  // cut off after the login timeout
        #expect(deckd.log.contains("did not log in within 1000 ms"))

        // The local socket needs no login, and says so rather than accept any token.
        let local = try ctl(deckd, ["call", "auth.login", #"{"token":"guess"}"#])
        #expect(local.status == 1)
        #expect(local.output.contains("this connection needs no login"))
        #expect(deckd.stop() == 0)
    }

    @Test func unauthenticatedTCPClientsCannotLockTheOwnerOutAndFailedLoginsSlowDown() throws {
        let (deckd, port, _) = try tcpDaemon()

        // Four silent TCP connections fill the unauthenticated quota…
        let squatters = (0..<4).map { _ in LineClient(port: port) }
        #expect(try ctl(deckd, ["status"]).status == 0)  // … they are accepted by now; the owner still gets in
        let fifth = LineClient(port: port)
        #expect(fifth.readLine()?.contains(#""code":-32006"#) == true)
        #expect(deckd.waitForLog("TCP connections are waiting to log in (control.maxUnauthenticated)"))
        #expect(try ctl(deckd, ["status"]).status == 0)
        withExtendedLifetime(squatters) {}

        // Failed logins from one source: each next attempt waits longer, and the log is not flooded.
        #expect(deckd.waitForLog("did not log in within 1000 ms", seconds: 10))
        let wrongLogin = #"{"jsonrpc":"2.0","method":"auth.login","params":{"token":"guess"},"id":1}"#
        var answered: [Double] = []
        for _ in 0..<5 {
            let started = Date()
            let client = LineClient(port: port)
            client.send(line: wrongLogin)
            #expect(client.readLine()?.contains("wrong token") == true)
            answered.append(Date().timeIntervalSince(started))
        }
        #expect(answered[4] >= 0.7)  // heard at once, then after 100, 200, 400 and 800 ms
        #expect(answered[4] > answered[1])
        let lines = deckd.log.split(separator: "\n").filter { $0.contains("that did not log in first") }
        #expect(lines.count == 1)  // the 1st is logged; the 10th, 100th… would be next
        #expect(deckd.stop() == 0)
    }

    @Test func aLoggedInTCPClientThatStaysSilentIsDisconnectedWhenConfigured() throws {
        let config = TemporaryDirectory()
        try #"{"control": {"idleTimeoutMs": 300}}"#.write(toFile: config.path + "/deck.json", atomically: true, encoding: .utf8)
        let (deckd, port, _) = try tcpDaemon(["--config", config.path + "/deck.json"])
        let client = LineClient(port: port)
        client.send(line: #"{"jsonrpc":"2.0","method":"auth.login","params":{"token":"correct-horse-battery-staple"},"id":1}"#)
        #expect(client.readLine()?.contains(#""result":true"#) == true)
        let started = Date()
        #expect(client.readLine() == nil)  // closed by the server
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(deckd.waitForLog("idle for 300 ms (control.idleTimeoutMs)"))
        #expect(deckd.stop() == 0)
    }

    /// As a Windows editor saves it: a byte order mark and CRLF are not part of the token.
    @Test func aTokenFileWithAByteOrderMarkAndCRLFHoldsTheTokenAlone() throws {
        let (deckd, port, _) = try tcpDaemon(tokenFile: "\u{FEFF}correct-horse-battery-staple\r\nsecond line\r\n")
        let client = LineClient(port: port)
        client.send(line: #"{"jsonrpc":"2.0","method":"auth.login","params":{"token":"correct-horse-battery-staple"},"id":1}"#)
        #expect(client.readLine() == #"{"id":1,"jsonrpc":"2.0","result":true}"#)
        #expect(deckd.stop() == 0)
    }

    /// Random bytes (`head -c 32 /dev/urandom`) are no token a client could send in JSON: deckd
    /// would start and nobody could log in.
    @Test func aTokenThatIsNotTextIsRefused() throws {
        let dir = TemporaryDirectory()
        let token = dir.path + "/token"
        #expect(FileManager.default.createFile(atPath: token, contents: Data([0x41, 0xFF, 0x00, 0x12] + Array(repeating: 0x42, count: 20)),
                                               attributes: [.posixPermissions: 0o600]))
        let result = try runProgram(Paths.binDir + "/deckd", ["--tcp", "127.0.0.1:0", "--token-file", token, "--socket", dir.path + "/d.sock",
                                                               "--state", "none", "--sink", "file:\(dir.path)/out.opus"])
        #expect(result.status == 2)
        #expect(result.output.hasPrefix("deckd: the token in \(token) is not text a client could send; make one with 'openssl rand -hex 32 > \(token)'"),
                "\(result.output)")
    }

    @Test func aTokenFileOthersCanReadIsRefused() throws {
        let dir = TemporaryDirectory()
        let token = dir.path + "/token"
        try "correct-horse-battery-staple\n".write(toFile: token, atomically: true, encoding: .utf8)
        chmod(token, 0o640)
        let result = try runProgram(Paths.binDir + "/deckd", ["--tcp", "127.0.0.1:0", "--token-file", token, "--socket", dir.path + "/d.sock"])
        #expect(result.status == 2)
        #expect(result.output.hasPrefix("deckd: --token-file \(token) is accessible by group or others (mode 640); run 'chmod 600 \(token)'"))
    }

    @Test(arguments: [(["--tcp", "127.0.0.1:7700"], "deckd: --tcp needs --token-file: TCP clients must log in"),
                      (["--token-file", "/dev/null"], "deckd: --token-file goes with --tcp HOST:PORT"),
                      (["--tcp-allow-remote"], "deckd: --tcp-allow-remote goes with --tcp HOST:PORT"),
                      (["--tcp", "127.0.0.1:99999", "--token-file", "/dev/null"],
                       "deckd: --tcp must be an IP address and a port from 0 to 65535 (127.0.0.1:7700, [::1]:7700), not '127.0.0.1:99999'"),
                      (["--tcp", "car.local:7700", "--token-file", "/dev/null"],
                       "deckd: --tcp must be an IP address and a port from 0 to 65535 (127.0.0.1:7700, [::1]:7700), not 'car.local:7700'"),
                      (["--tcp", "0.0.0.0:7700", "--token-file", "/dev/null"],
                       "deckd: --tcp 0.0.0.0:7700 is not a loopback address; add --tcp-allow-remote to expose the control API")])
    func tcpMisuseIsAUsageError(arguments: [String], message: String) throws {
        let result = try runProgram(Paths.binDir + "/deckd", arguments)
        #expect(result.status == 2)
        #expect(result.output.hasPrefix(message))
    }
}
