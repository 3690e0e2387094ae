import CProcess
import DeckRuntime
import Glibc

/// The head unit simulator (`deckd --simulator`) in a real headless Chromium, each figure beside a
/// bare client of the same deckd in the same run: a burst of notifications as the page draws
/// them vs a bare reader of the same event stream; a click to its new screen vs the bare HTTP
/// round trip of the same call; a `ui.changed` to its screen drawn vs one 60 Hz display frame.
struct SimulatorBench {
    var options: BenchOptions
    static let burst = 2_000
    static let driver = "Tests/Fixtures/simulator-drive.py"

    func run() throws {
        print("## simulator (deckd --simulator in headless Chromium; Tone's screen)\n")
        guard access(SimulatorBench.driver, R_OK) == 0, access("/usr/bin/chromedriver", X_OK) == 0 else {
            throw BenchError("the simulator suite runs from the repository (\(SimulatorBench.driver)) with chromium-driver installed (make deps)")
        }
        let folder = try TemporaryFolder()
        chmod(folder.path, 0o711)
        let socketPath = folder.path + "/deck.sock"
        let port = try SimulatorBench.freePort(), url = "http://127.0.0.1:\(port)/"
        let deckd = try Subprocess(options.bin + "/deckd", ["--plugins", options.bin + "/plugins", "--socket", socketPath, "--state", "none",
                                                            "--simulator", "127.0.0.1:\(port)", "--sink", "file:\(folder.path)/out.opus",
                                                            "--sink", "http://127.0.0.1:0/stream.opus", "--log-level", "warning"])
        defer { deckd.finish(signal: SIGTERM) }
        try RPCClient.waitForSocket(socketPath)
        _ = try call(socketPath, #"{"jsonrpc":"2.0","id":1,"method":"apps.launch","params":{"id":"org.deck.tone","item":"silence"}}"#)

        // Bare references first: the event stream read by a plain socket, the click's call by a plain POST.
        var bare: [Double] = []
        for _ in 0..<3 { bare.append(try bareBurst(socketPath, port: port)) }
        let screen = try JSONValue.parse(try call(socketPath, #"{"jsonrpc":"2.0","id":1,"method":"ui.get"}"#))["result"]
        let row = screen?["stack"]?.arrayValue?.last?["sections"]?.arrayValue?.flatMap { $0["items"]?.arrayValue ?? [] }
            .first { $0["text"]?.stringValue == "Sine 1000 Hz" }?["id"]?.intValue ?? 0
        var posts: [Double] = []
        for _ in 0..<20 {
            let started = Subprocess.now()
            let answer = try post(port: port, #"{"jsonrpc":"2.0","id":1,"method":"ui.select","params":{"id":\#(row)}}"#)
            posts.append(Double(Subprocess.now() - started) / 1e6)
            guard answer.hasPrefix("HTTP/1.1 200 "), answer.contains(#""result":"#) else {
                throw BenchError("the reference POST of ui.select \(row) was not answered with a result:\n\(answer.prefix(600))")
            }
        }

        let drive = try Subprocess("/usr/bin/env", ["DECK_SIM_BURST=\(SimulatorBench.burst)", "/usr/bin/python3", SimulatorBench.driver, "tour", url,
                                                    socketPath, options.bin + "/deckctl", folder.path, "Sine 1000 Hz"])
        guard drive.finish() == 0, let line = drive.output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
              let page = try? JSONValue.parse(String(line)) else {
            throw BenchError("the simulator driver failed:\n\(drive.output.suffix(2000))")
        }
        let events = Double(page["burst"]?["events"]?.intValue ?? 0), seconds = page["burst"]?["seconds"]?.doubleValue ?? 1
        let bareRate = Double(SimulatorBench.burst) / median(bare), pageRate = events / seconds
        let click = page["clickToScreenMs"]?["p50"]?.doubleValue ?? 0, clicks = page["clickToScreenMs"]?["count"]?.intValue ?? 0
        let drawn = page["eventToScreenMs"]?["p50"]?.doubleValue ?? 0, drawnMax = page["eventToScreenMs"]?["max"]?.doubleValue ?? 0
        let frame = 1_000.0 / 60
        print("| burst of \(SimulatorBench.burst) volume.set from a socket client | notifications/s | lost | vs a bare reader |")
        print("|---|---|---|---|")
        print("| bare reader of /events (reference; median of 3) | \(Int(bareRate)) | 0 | 1.00× |")
        print("| the page (EventSource, each drawn) | \(Int(pageRate)) | \(page["burst"]?["gaps"]?.intValue ?? -1) gaps | "
              + "\(String(format2: pageRate / bareRate))× |")
        print("\n| a click on a row | ms (median) | vs its reference |")
        print("|---|---|---|")
        print("| bare POST /rpc ui.select of the same row (reference; 20 calls) | \(String(format3: median(posts))) | 1.00× |")
        print("| the page: click → answer → new screen drawn (\(clicks) clicks) | \(String(format3: click)) | "
              + "\(String(format2: click / median(posts)))× |")
        print("| the page: ui.changed received → screen drawn (median, max) | \(String(format3: drawn)), \(String(format3: drawnMax)) | "
              + "\(String(format2: drawn / frame)) display frames (16.7 ms) |")
        print("")
    }

    private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// One request on the control socket; its answer line.
    private func call(_ path: String, _ request: String) throws -> String {
        guard let client = RPCClient(path: path) else { throw BenchError("cannot connect to \(path)") }
        RPCClient.sendAll(client.fd, Array(request.utf8) + [10])
        guard let line = client.readLine() else { throw BenchError("no answer to \(request)") }
        return String(decoding: line, as: UTF8.self)
    }

    /// Seconds from sending the burst on the control socket to its last notification read from /events.
    private func bareBurst(_ path: String, port: Int) throws -> Double {
        let events = try SimulatorBench.connect(port: port)
        defer { close(events) }
        RPCClient.sendAll(events, Array("GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
        var chunk = [UInt8](repeating: 0, count: 1 << 16), seen = 0, tail: [UInt8] = []
        let marker = Array("data: ".utf8)
        // The stream's head and its retry line arrive before anything is sent.
        _ = recv(events, &chunk, chunk.count, 0)
        guard let control = RPCClient(path: path) else { throw BenchError("cannot connect to \(path)") }
        let burst = (0..<SimulatorBench.burst).map {
            #"{"jsonrpc":"2.0","id":\#($0),"method":"volume.set","params":{"group":"navigation","index":\#(20 + $0 % 2)}}"# + "\n"
        }.joined()
        let started = Subprocess.now()
        // Its answers are read as they come: a client that does not read them is read no further.
        let answers = BenchThread { for _ in 0..<SimulatorBench.burst where control.readLine() != nil {} }
        defer { answers.join() }
        RPCClient.sendAll(control.fd, Array(burst.utf8))
        while seen < SimulatorBench.burst {
            let count = recv(events, &chunk, chunk.count, 0)
            guard count > 0 else { throw BenchError("the event stream ended after \(seen) notifications") }
            let text = tail + chunk[..<count]
            var index = 0
            while index + marker.count <= text.count {
                if text[index] == marker[0], Array(text[index..<(index + marker.count)]) == marker { seen += 1; index += marker.count } else { index += 1 }
            }
            tail = Array(text.suffix(marker.count - 1))
        }
        return Double(Subprocess.now() - started) / 1e9
    }

    /// One POST /rpc; the response's body.
    private func post(port: Int, _ body: String) throws -> String {
        let fd = try SimulatorBench.connect(port: port)
        defer { close(fd) }
        let request = "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        RPCClient.sendAll(fd, Array(request.utf8))
        var response: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 1 << 16)
        while case let count = recv(fd, &chunk, chunk.count, 0), count > 0 { response += chunk[..<count] }
        return String(decoding: response, as: UTF8.self)
    }

    /// A port nothing listens on now (the kernel's pick for port 0).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw BenchError("cannot connect to 127.0.0.1:\(port)")
        }
        return fd
    }
}
