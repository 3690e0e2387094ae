import DeckTestSupport
import Foundation
import Testing

/// `deckd --simulator`: the head unit in a real headless Chromium (driven by selenium through
/// Tests/Fixtures/simulator-drive.py) shows, plays, follows and steps what the runtime does; its
/// HTTP side serves deckd's user on this machine only and refuses what a web page could forge.
@Suite(.serialized) struct SimulatorTests {
    /// deckd serving the simulator on a free port, with the core plugins (Tone has the screen).
    private func simulator(_ dir: TemporaryDirectory) throws -> (deckd: DeckdProcess, url: String) {
        let deckd = try DeckdProcess(["--plugins", Paths.corePlugins, "--state", "none", "--simulator", "127.0.0.1:0",
                                      "--sink", "file:\(dir.path)/out.opus", "--sink", "http://127.0.0.1:0/stream.opus"])
        #expect(deckd.waitForLog("deckd: ready"), "\(deckd.log)")
        let url = deckd.log.components(separatedBy: "head unit simulator on ").dropFirst().first?.prefix { $0 != " " }
        return (deckd, String(try #require(url, "\(deckd.log)")))
    }

    /// Status line of `curl ARGUMENTS URL`.
    private func status(_ url: String, _ arguments: [String] = []) throws -> String {
        let result = try runProgram("/usr/bin/curl", ["-s", "-i", "--max-time", "5"] + arguments + [url])
        return String(result.output.prefix { !$0.isNewline })
    }

    @Test func theBrowserShowsPlaysAndFollowsTheRuntime() throws {
        let dir = TemporaryDirectory()
        let (deckd, url) = try simulator(dir)
        let shots = dir.path + "/shots"
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let run = try runProgram("/usr/bin/python3", [Paths.repoRoot + "/Tests/Fixtures/simulator-drive.py", "tour", url, deckd.socket,
                                                      Paths.binDir + "/deckctl", shots, "Sine 1000 Hz"], timeout: 120)
        #expect(run.status == 0, "\(run.output)\n\(deckd.log)")
        let line = try #require(run.output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(run.output)")
        let page = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])

        #expect(page["title"] as? String == "Tone")
        // A screenshot per display profile, each exactly the profile's pixels; kept in .build/artifacts/simulator.
        let artefacts = Paths.repoRoot + "/.build/artifacts/simulator"
        try? FileManager.default.createDirectory(atPath: artefacts, withIntermediateDirectories: true)
        for (name, size) in [("748x456", (748, 456)), ("800x480", (800, 480)), ("768x1024", (768, 1024)), ("1920x720", (1920, 720))] {
            let path = "\(shots)/simulator-\(name).png"
            let png = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(png.prefix(8) == Data([137, 80, 78, 71, 13, 10, 26, 10]), "\(name) is a PNG")
            let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == size.0 && height == size.1, "\(name): \(width)×\(height)")
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: shots)) ?? [] where name.hasSuffix(".png") {
            try? FileManager.default.removeItem(atPath: "\(artefacts)/\(name)")
            try? FileManager.default.copyItem(atPath: "\(shots)/\(name)", toPath: "\(artefacts)/\(name)")
        }
        // A content item browsed to plays; the clicked row plays, and the page follows what deckctl does without a reload.
        #expect((page["browsed"] as? String)?.isEmpty == false, "\(page)")
        #expect(page["nowPlayingTitle"] as? String == "Sine 1000 Hz")
        #expect((page["sessionAfterClick"] as? String)?.contains("org.deck.tone · music") == true, "\(page)")
        // Its player decoded deckd's live Ogg Opus stream for over a second.
        #expect(page["listenedSeconds"] as? Double ?? 0 > 1 && (page["listenedFrom"] as? String)?.hasSuffix("/stream.opus") == true, "\(page)")
        #expect((page["pausedFromOutside"] as? String)?.hasPrefix("paused · org.deck.tone") == true, "\(page)")
        #expect(page["noReload"] as? Bool == true)
        #expect(page["lastSignalButtons"] as? [String] == ["player.previous on", "player.togglePlayPause on", "player.next off"], "\(page)")
        // Driving cuts the list and says by how much.
        let parked = page["rowsParked"] as? Int ?? 0, driving = page["rowsDriving"] as? Int ?? 0
        #expect(driving < parked && driving > 0, "\(parked) rows parked, \(driving) driving")
        #expect(page["droppedDriving"] as? Int == parked - driving, "\(page)")
        // The volume keys stepped media twice, as the runtime now says too.
        let before = page["mediaBefore"] as? Int ?? 0
        #expect(page["mediaAfter"] as? Int == before - 2)
        #expect(page["keysGroups"] as? [String] == ["media"], "the group the keys step is marked, after volume.changed too: \(page)")
        let volume = try JSONSerialization.jsonObject(with: Data(try deckd.deckctl(["--json", "volume"]).output.utf8)) as? [String: Any]
        let media = (volume?["groups"] as? [[String: Any]])?.first { $0["name"] as? String == "media" }
        #expect(media?["index"] as? Int == before - 2, "\(volume ?? [:])")
        // A burst of 400 notifications: every one reached the page, none lost.
        let burst = try #require(page["burst"] as? [String: Any])
        #expect(burst["events"] as? Int ?? 0 >= 400 && burst["gaps"] as? Int == 0, "\(burst)")
        #expect((page["clickToScreenMs"] as? [String: Any])?["count"] as? Int ?? 0 >= 1, "\(page)")
        #expect((page["pageErrors"] as? [Any])?.isEmpty == true && (page["consoleErrors"] as? [Any])?.isEmpty == true, "\(page)")
        print("simulator: click→screen \(page["clickToScreenMs"] ?? ""), ui.changed→screen \(page["eventToScreenMs"] ?? ""), burst \(burst)")

        // And the click was heard: the last second of the output is the 1000 Hz tone.
        #expect(deckd.stop() == 0)
        let audio = try AudioAnalysis.decodeWithFFmpeg(dir.path + "/out.opus")
        #expect(abs(try AudioAnalysis.dominantFrequency(audio.left, start: max(0, audio.left.count - 48_000)) - 1000) < 5)
    }

    /// The UI fixture's templates as the page draws them: its tab bar, a detail pushed and popped,
    /// an alert over the screen dismissed by an action, a now-playing template and a grid.
    @Test func theTemplatesAreDrawnAndDriven() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/plugins", withIntermediateDirectories: true)
        try Fixture.bundle(in: dir.path + "/plugins", name: "UI", manifest: ["id": "org.deck.test.ui", "name": "UI fixture", "library": "libui.so"],
                           library: "libui.so", source: Paths.repoRoot + "/Tests/Fixtures/ui-plugin.c")
        let deckd = try DeckdProcess(["--plugins", dir.path + "/plugins", "--state", "none", "--simulator", "127.0.0.1:0",
                                      "--sink", "file:\(dir.path)/out.opus"])
        #expect(deckd.waitForLog("deckd: ready"), "\(deckd.log)")
        let url = String(try #require(deckd.log.components(separatedBy: "head unit simulator on ").dropFirst().first?.prefix { $0 != " " }))
        let run = try runProgram("/usr/bin/python3", [Paths.repoRoot + "/Tests/Fixtures/simulator-drive.py", "templates", url, dir.path], timeout: 120)
        #expect(run.status == 0, "\(run.output)\n\(deckd.log)")
        let line = try #require(run.output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(run.output)")
        let page = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(page["tabs"] as? [String] == ["Stations", "Podcasts"])
        #expect(page["firstTab"] as? [String] == ["FM4", "Oe1", "Slow station"])
        #expect(page["detail"] as? [String] == ["Play", "Now: Morning Show"] && page["backEnabled"] as? Bool == true, "\(page)")
        #expect((page["alert"] as? String)?.contains("Tune in now?") == true && page["alertButtons"] as? [String] == ["Tune in", "Later"], "\(page)")
        #expect((page["nowPlayingTemplate"] as? String)?.contains("Play / pause") == true, "\(page)")
        #expect(page["grid"] as? [String] == ["Jazz", "Rock", "News"] && page["gridTitle"] as? String == "Genres", "\(page)")
        #expect((page["pageErrors"] as? [Any])?.isEmpty == true, "\(page)")
        #expect(deckd.log.contains("select: later"), "the alert's action reached the app")
        let artefacts = Paths.repoRoot + "/.build/artifacts/simulator"
        try? FileManager.default.createDirectory(atPath: artefacts, withIntermediateDirectories: true)
        for name in ["simulator-alert.png", "simulator-grid.png"] {
            try? FileManager.default.removeItem(atPath: "\(artefacts)/\(name)")
            try? FileManager.default.copyItem(atPath: "\(dir.path)/\(name)", toPath: "\(artefacts)/\(name)")
        }
        #expect(deckd.stop() == 0)
    }

    @Test func onlyThisMachinesUserAndNoOtherSiteMayUseIt() throws {
        let dir = TemporaryDirectory()
        let (deckd, url) = try simulator(dir)
        let json = ["-H", "Content-Type: application/json"]
        let call = #"{"jsonrpc":"2.0","id":1,"method":"volume.get"}"#
        #expect(try status(url) == "HTTP/1.1 200 OK")
        #expect(try status(url + "rpc", ["-X", "POST"] + json + ["--data", call]) == "HTTP/1.1 200 OK")
        // What a page from another site could send, or a name a DNS rebinding would give.
        #expect(try status(url + "rpc", ["-X", "POST", "-H", "Content-Type: text/plain", "--data", call]) == "HTTP/1.1 415 Unsupported Media Type")
        #expect(try status(url + "rpc", ["-X", "POST", "-H", "Origin: http://example.com"] + json + ["--data", call]) == "HTTP/1.1 403 Forbidden")
        #expect(try status(url + "events", ["-H", "Origin: http://example.com"]) == "HTTP/1.1 403 Forbidden")
        #expect(try status(url, ["-H", "Host: deck.example.com"]) == "HTTP/1.1 421 Misdirected Request")
        // Malformed or oversized requests get their precise answer, and the server goes on.
        #expect(try status(url + "rpc", ["-X", "POST"] + json + ["--data", #"{"jsonrpc":"2.0","method":"volume.get"}"#]) == "HTTP/1.1 400 Bad Request")
        #expect(try status(url + "rpc", ["-X", "PUT"] + json + ["--data", call]) == "HTTP/1.1 405 Method Not Allowed")
        // Valid JSON holding a number Deck cannot hold is the request's own error, with its id.
        let unheld = try runProgram("/usr/bin/curl", ["-s", "--max-time", "5", "-X", "POST"] + json
            + ["--data", #"{"jsonrpc":"2.0","id":7,"method":"volume.set","params":{"group":"media","index":18446744073709551616}}"#, url + "rpc"])
        #expect(unheld.output.hasPrefix(#"{"error":{"code":-32602,"message":"Invalid params: line 1, column 81: integer out of range"#)
                && unheld.output.hasSuffix(#""id":7,"jsonrpc":"2.0"}"#), "\(unheld.output)")
        #expect(try status(url + "../etc/passwd", ["--path-as-is"]) == "HTTP/1.1 404 Not Found")
        let host = String(url.dropFirst("http://".count).dropLast())
        // A HEAD is answered with the head a GET would get, Content-Length included, and no content.
        let page = try runProgram("/usr/bin/curl", ["-s", "--max-time", "5", url]).output
        for (target, answer) in [("/", "HTTP/1.1 200 OK\r"), ("/nope", "HTTP/1.1 404 Not Found\r"), ("/events", "HTTP/1.1 200 OK\r")] {
            let raw = LineClient(port: Int(host.split(separator: ":").last!)!)
            raw.send(line: "HEAD \(target) HTTP/1.1\r\nHost: \(host)\r\n\r")
            let lines = Array(sequence(first: raw.readLine()) { _ in raw.readLine() }.prefix { $0 != nil }.compactMap { $0 })
            raw.close()
            #expect(lines.first == answer && lines.last == "\r", "HEAD \(target): \(lines)")
            if target == "/" { #expect(lines.contains("Content-Length: \(page.utf8.count)\r"), "\(lines)") }
            // The event stream's head: no length, as its GET has none, and no stream after it.
            if target == "/events" { #expect(lines.contains("Content-Type: text/event-stream\r") && !lines.contains { $0.hasPrefix("Content-Length") }, "\(lines)") }
        }
        // Headers a proxy and deckd could read two ways, and lengths that are not lengths.
        for twice in ["Host: deck.example.com\r\nContent-Length: 46", "Content-Length: 46\r\nContent-Length: 4"] {
            let raw = LineClient(port: Int(host.split(separator: ":").last!)!)
            raw.send(line: "POST /rpc HTTP/1.1\r\nHost: \(host)\r\nContent-Type: application/json\r\n\(twice)\r\n\r\n\(call)")
            #expect(raw.readLine()?.hasPrefix("HTTP/1.1 400 Bad Request") == true, "\(twice)")
            raw.close()
        }
        for length in ["-1", "+47", "0x2f"] {
            #expect(try status(url + "rpc", ["-X", "POST", "-H", "Content-Length: \(length)"] + json + ["--data", call]) == "HTTP/1.1 400 Bad Request",
                    "Content-Length: \(length)")
        }
        #expect(try status(url + "rpc", ["-X", "POST", "-H", "Content-Length: 99999999999999999999"] + json + ["--data", call])
                == "HTTP/1.1 413 Content Too Large")
        #expect(try status(url + "rpc", ["-X", "POST", "-H", "Transfer-Encoding: chunked"] + json + ["--data", call]) == "HTTP/1.1 411 Length Required")
        #expect(try status(url, ["-H", "X-Big: " + String(repeating: "a", count: 9_000)]) == "HTTP/1.1 431 Request Header Fields Too Large")
        let big = dir.path + "/big.json"
        try String(repeating: " ", count: 1_100_000).appending(call).write(toFile: big, atomically: true, encoding: .utf8)
        #expect(try status(url + "rpc", ["-X", "POST"] + json + ["--data-binary", "@" + big]) == "HTTP/1.1 413 Content Too Large")
        // Another user of this machine is refused, as the control socket (0600) refuses them.
        if geteuid() == 0 {
            let other = try runProgram("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/curl", "-s", "-i", url])
            #expect(other.output.hasPrefix("HTTP/1.1 403 Forbidden") && other.output.contains("uid 65534"), "\(other.output)")
        }
        #expect(try status(url) == "HTTP/1.1 200 OK", "still serving")
        #expect(deckd.log.contains("simulator: answered 415 Unsupported Media Type: POST /rpc takes Content-Type: application/json"), "refusals are logged (once a burst)")
        #expect(deckd.stop() == 0)
    }

    @Test func itListensOnLoopbackOnly() throws {
        let result = try runProgram(Paths.binDir + "/deckd", ["--simulator", "0.0.0.0:8090", "--state", "none"])
        #expect(result.status == 2 && result.output.contains("--simulator must be a loopback HOST:PORT"), "\(result.output)")
        let dir = TemporaryDirectory()
        try #"{"simulator": "192.168.1.2:80"}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let config = try runProgram(Paths.binDir + "/deckd", ["--config", dir.path + "/deck.json", "--state", "none"])
        #expect(config.status == 2 && config.output.contains(#""simulator" must be a loopback HOST:PORT"#), "\(config.output)")
    }
}
