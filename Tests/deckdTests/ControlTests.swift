import DeckRuntime
import DeckTestSupport
import Foundation
import Synchronization
import Testing

/// deckctl and raw clients against a real deckd over its control socket.
@Suite struct ControlTests {
    let deckctl = Paths.binDir + "/deckctl"
    let firstParty = Paths.corePlugins

    func daemon(_ extra: [String] = []) throws -> DeckdProcess { try DeckdProcess.firstParty(extra) }

    func ctl(_ daemon: DeckdProcess, _ arguments: [String]) throws -> (status: Int32, output: String) { try daemon.deckctl(arguments) }

    /// A Unix stream socket bound at `path` (not listening): its descriptor.
    func boundSocket(at path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        return fd
    }

    @Test func everyCommandInHumanAndJSONForm() throws {
        let dir = TemporaryDirectory()
        let deckd = try daemon(["--sink", "file:\(dir.path)/out.opus"])
        var result = try ctl(deckd, ["status"])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("Deck 0.1.0 (plugin ABI 1.6)\napps: 2 loaded, 0 refused\noutput: inactive"))
        result = try ctl(deckd, ["--json", "status"])
        #expect(result.output.contains(#""version":"0.1.0""#))

        let apps = try ctl(deckd, ["apps"]).output
        let lines = apps.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("org.deck.prompts  0.1.0  active  swift  [audio,maps]  "), "\(apps)")
        #expect(lines.count == 2 && lines[1].hasPrefix("org.deck.tone  0.3.0  active  swift  [audio]  "), "\(apps)")
        #expect(apps.hasSuffix(TestIsolation.mode == .inline ? "  inline\n" : "\n") && apps.contains(TestIsolation.mode == .inline ? "inline" : "process "))
        #expect(try ctl(deckd, ["--json", "apps"]).output.contains(#""id":"org.deck.tone""#))

        result = try ctl(deckd, ["launch", "org.deck.tone", "sine-440"])
        #expect(result == (0, "org.deck.tone: active\n"))
        #expect(try ctl(deckd, ["session"]).output == "output: active\norg.deck.tone  music  gain  playing  gain 0.0 dB\n")
        #expect(try ctl(deckd, ["--json", "session"]).output.contains(#""state":"playing""#))

        let sinks = try ctl(deckd, ["sinks"]).output
        #expect(sinks.hasPrefix("1  file:\(dir.path)/out.opus  recording  app audio  "))
        #expect(try ctl(deckd, ["--json", "sinks"]).output.hasPrefix(#"[{"bytes":"#))

        result = try ctl(deckd, ["call", "session.request", #"{"context":"navigation"}"#])
        #expect(result.output == "{\n  \"result\": \"granted\"\n}\n")
        // deckctl's connection closed with the call, and the prompt's focus with it.
        #expect(try ctl(deckd, ["--json", "call", "session.get"]).output.contains(#""state":"playing""#))
        let prompt = LineClient(path: deckd.socket)
        #expect(prompt.call("session.request", #"{"context":"navigation"}"#)?.contains("granted") == true)
        #expect(try ctl(deckd, ["--json", "call", "session.get"]).output.contains(#""state":"ducked""#))
        #expect(deckd.stop() == 0)
    }

    @Test func eventsArriveAsTheyHappen() throws {
        let dir = TemporaryDirectory()
        let deckd = try daemon(["--output-dir", dir.path])
        let events = try ChildProgram(deckctl, ["--socket", deckd.socket, "events", "sinks.changed"], output: .pipe, errors: .null)
        // The subscription races the first change: add sinks until one is heard of.
        let heard = Mutex(Data())
        let fd = try #require(events.output), readerDone = DispatchSemaphore(value: 0)
        Thread {  // plain read(2), retried on EINTR, until deckctl's end of the pipe closes
            defer { readerDone.signal() }
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(fd, &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                heard.withLock { $0.append(contentsOf: chunk[..<count]) }
            }
        }.start()
        var added = 0
        while heard.withLock({ $0.isEmpty }) && added < 50 {
            added += 1
            #expect(try ctl(deckd, ["call", "sinks.add", #"{"uri":"file:e\#(added).opus"}"#]).status == 0)
        }
        #expect(deckd.stop() == 0)  // closing the socket ends the events command
        events.waitUntilExit()
        #expect(readerDone.wait(timeout: .now() + 10) == .success, "the pipe ends with deckctl")  // and all it wrote was read
        let output = String(decoding: heard.withLock { $0 }, as: UTF8.self)
        #expect(output.hasPrefix(#"sinks.changed: {"seq":"#))
        #expect(output.contains(#""sinks":[{"#))
        #expect(output.contains("e\(added).opus"))
    }

    @Test func theAnswerComesBeforeTheNotificationsItCausedAndEveryNotificationIsNumbered() throws {
        let deckd = try daemon(["--play", "org.deck.tone:sine-440"])
        let client = LineClient(path: deckd.socket)
        #expect(client.call("events.subscribe", #"{"topics":["session.changed"]}"#)?.contains("session.changed") == true)
        var seqs: [Int64] = []
        for (id, method, params) in [(2, "session.request", #"{"context":"navigation"}"#), (3, "session.abandon", "{}")] {
            client.send(line: #"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params),"id":\#(id)}"#)
            let first = try JSONValue.parse(try #require(client.readLine()))
            #expect(first["id"] == .int(Int64(id)))  // the answer, then what it caused
            let note = try JSONValue.parse(try #require(client.readLine()))
            #expect(note["method"] == "session.changed")
            let time = try #require(note["params"]?["time"]?.intValue)
            #expect(abs(Double(time) / 1000 - Date().timeIntervalSince1970) < 10)
            seqs.append(try #require(note["params"]?["seq"]?.intValue))
        }
        #expect(seqs[1] == seqs[0] + 1)
        #expect(deckd.stop() == 0)
    }

    @Test func jsonOutputPrintsNumbersAsWritten() throws {
        let deckd = try daemon(["--play", "org.deck.tone:sine-440"])
        let prompt = LineClient(path: deckd.socket)
        #expect(prompt.call("session.request", #"{"context":"navigation"}"#)?.contains("granted") == true)
        let session = try ctl(deckd, ["--json", "session"]).output
        #expect(session.contains(#""gain":0.199526235461235,"#), "\(session)")  // -14 dB in 15 digits, not 0.19952623546123505
        #expect(deckd.stop() == 0)
    }

    @Test func aFailedAppsLoadIsAnsweredButNotKeptAsRefused() throws {
        let dir = TemporaryDirectory()
        let deckd = try daemon()
        let load = try ctl(deckd, ["call", "apps.load", #"{"path":"\#(dir.path)/Missing.deckplugin"}"#])
        #expect(load.status == 1)
        #expect(load.output.contains("-32004 Command failed: no bundle there: No such file or directory"), "\(load.output)")
        try Data().write(to: URL(fileURLWithPath: dir.path + "/File.deckplugin"))
        let file = try ctl(deckd, ["call", "apps.load", #"{"path":"\#(dir.path)/File.deckplugin"}"#])
        #expect(file.output.contains("not a bundle directory (a bundle is NAME.deckplugin/ holding manifest.json and the library)"), "\(file.output)")
        // A path relative to the client's folder would name another place in deckd's.
        for path in ["Tone.deckplugin", ""] {
            let relative = try ctl(deckd, ["call", "apps.load", #"{"path":"\#(path)"}"#])
            #expect(relative == (1, "deckctl: -32602 Invalid params: \"path\" must be absolute (/…/NAME.deckplugin), not \"\(path)\"\n"), "\(relative)")
        }
        #expect(try ctl(deckd, ["status"]).output.contains("apps: 2 loaded, 0 refused"))
        #expect(deckd.stop() == 0)
    }

    @Test func exitCodesAndMessages() throws {
        let deckd = try daemon()
        #expect(try ctl(deckd, ["frobnicate"]).status == 2)
        #expect(try ctl(deckd, ["launch"]).status == 2)
        let missing = try ctl(deckd, ["launch", "org.example.absent"])
        #expect(missing == (1, "deckctl: -32003 No such app: org.example.absent\n"))
        #expect(try ctl(deckd, ["launch", ""]) == (1, "deckctl: -32003 No such app: \"\" (an empty id)\n"))
        let broken = try ctl(deckd, ["call", "player.seek", #"{"seconds": 1"#])
        #expect(broken.status == 2 && broken.output.hasPrefix("deckctl: params are not valid JSON (line 1, column 14: "), "\(broken.output)")
        let unheld = try ctl(deckd, ["call", "player.seek", #"{"seconds": 1e400}"#])
        #expect(unheld.status == 2 && unheld.output.hasPrefix("deckctl: params hold a value Deck cannot hold: line 1, column 13: real number overflow"),
                "\(unheld.output)")
        // A command that takes no arguments refuses them instead of doing something else than was meant.
        for command in ["status", "apps", "zones", "session", "queue", "play", "back"] {
            let extra = try ctl(deckd, [command, "org.deck.tone"])
            #expect(extra.status == 2 && extra.output.hasPrefix("deckctl: \(command) takes no arguments, not org.deck.tone"), "\(extra)")
        }
        // Tone's items are its words exactly: no frequency out of range, no sign slipped past the dash.
        // An item that is empty, or has a space at an end, is quoted so that what was sent shows.
        for (item, named) in [("sine-0", "sine-0"), ("sine--5", "sine--5"), ("stereo-440--660", "stereo-440--660"), ("sine-24000", "sine-24000"),
                              ("", "the empty item \"\""), ("sine-440 ", "\"sine-440 \""), ("  ", "\"  \"")] {
            let refused = try ctl(deckd, ["launch", "org.deck.tone", item])
            #expect(refused.status == 1 && refused.output.contains("unknown item \"\(item)\"")
                    && refused.output.contains("each F from 1 to under 24000 Hz")
                    && refused.output.contains("refused to play \(named): "), "\(refused.output)")
        }
        let help = try ctl(deckd, ["sinks", "--help"])
        #expect(help.status == 0 && help.output.hasPrefix("usage: deckctl [--socket PATH] [--zone ZONE] [--timeout SECONDS] [--json] sinks"))
        let noDaemon = try runProgram(deckctl, ["--socket", "/nonexistent/deck.sock", "status"])
        #expect(noDaemon.status == 3)
        #expect(noDaemon.output.contains("cannot connect to /nonexistent/deck.sock"))
        #expect(noDaemon.output.contains("Start it with `deckd`"))
        for (path, reason) in [("/tmp", "it is a folder, not a socket"), ("/etc/passwd", "it is a file, not a socket")] {
            let notASocket = try runProgram(deckctl, ["--socket", path, "status"])
            #expect(notASocket.status == 3 && notASocket.output.hasPrefix("deckctl: cannot connect to \(path): \(reason)"), "\(notASocket.output)")
        }
        let empty = try runProgram(deckctl, ["--socket", "", "status"])
        #expect(empty.status == 2 && empty.output.hasPrefix("deckctl: --socket needs a path"), "\(empty.output)")
        #expect(deckd.stop() == 0)
    }

    @Test func theSocketIsPrivateAndALiveOneIsNotStolen() throws {
        let deckd = try daemon()
        var info = stat()
        #expect(stat(deckd.socket, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let second = try runProgram(Paths.binDir + "/deckd", ["--plugins", firstParty, "--socket", deckd.socket, "--state", "none"], timeout: 20)
        #expect(second.status == 1)
        #expect(second.output.contains("another deckd is answering on \(deckd.socket)"))
        #expect(try ctl(deckd, ["status"]).status == 0)
        #expect(deckd.stop() == 0)
        #expect(stat(deckd.socket, &info) != 0)  // removed on exit
    }

    @Test func aStaleSocketFileIsReplaced() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/stale.sock"
        close(boundSocket(at: path))  // the file stays; nobody answers on it
        let stale = try runProgram(deckctl, ["--socket", path, "status"])
        #expect(stale.status == 3 && stale.output.contains("no process serves this socket: the deckd that made it has stopped"), "\(stale.output)")
        let deckd = try daemon(["--socket", path])
        #expect(try runProgram(deckctl, ["--socket", path, "status"]).status == 0)
        #expect(deckd.stop() == 0)
    }

    @Test func hostileInputIsAnsweredOrCutOffWhileOthersAndTheAudioCarryOn() throws {
        let dir = TemporaryDirectory()
        let deckd = try daemon(["--play", "org.deck.tone:sine-440", "--sink", "file:\(dir.path)/live.opus"])
        let hostile = LineClient(path: deckd.socket)
        hostile.send([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D, 10])  // invalid UTF-8
        #expect(hostile.readLine()?.contains(#""code":-32700"#) == true)
        hostile.send(line: String(repeating: "[", count: 100) + String(repeating: "]", count: 100))
        #expect(hostile.readLine()?.contains(#""code":-32001"#) == true)
        // A 10 MiB line: refused once, the rest of it skipped, and the connection still answers.
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        for _ in 0..<10 { hostile.send(chunk) }
        hostile.send(Array("\n{\"jsonrpc\":\"2.0\",\"method\":\"runtime.info\",\"id\":7}\n".utf8))
        #expect(hostile.readLine()?.contains(#""code":-32001"#) == true)
        #expect(hostile.readLine()?.contains(#""id":7"#) == true)
        // A half-written request, then the client vanishes.
        let vanishing = LineClient(path: deckd.socket)
        vanishing.send(Array(#"{"jsonrpc":"2.0","method":"runtime.in"#.utf8))
        vanishing.close()
        // A client that never reads its responses is disconnected, not buffered without bound.
        let deaf = LineClient(path: deckd.socket, receiveBuffer: 4096)
        let request = Array(#"{"jsonrpc":"2.0","method":"apps.list","id":1}"#.utf8) + [10]
        let many = Array([[UInt8]](repeating: request, count: 2_000).joined())
        var sendTimeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(deaf.fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        for _ in 0..<30 {  // until deckd stops reading it: the kernel's buffers fill and a send times out
            if deaf.send(many) < many.count { break }
        }
        // While it is still connected and stalled, another client is answered and the audio streams.
        #expect(!deckd.log.contains("disconnected a client"))
        let status = try ctl(deckd, ["--json", "status"])
        #expect(!deckd.log.contains("disconnected a client"))
        #expect(status.status == 0)
        let frames = try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        #expect(((frames?["output"] as? [String: Any])?["frames"] as? Int ?? 0) > 10)
        #expect(deckd.waitForLog("disconnected a client that does not read its answers", seconds: 20))
        deaf.close()
        hostile.close()
        #expect(deckd.stop() == 0)
        #expect(try AudioAnalysis.opusinfo(dir.path + "/live.opus").warnings.isEmpty)
    }
}

extension ControlTests {
    @Test func rpcDiscoverIsAValidOpenRPCDocumentListingEveryMethod() throws {
        let deckd = try daemon()
        let discovered = try ctl(deckd, ["--json", "call", "rpc.discover"])
        #expect(discovered.status == 0)
        let dir = TemporaryDirectory()
        try discovered.output.write(toFile: dir.path + "/openrpc.json", atomically: true, encoding: .utf8)
        let check = try runProgram("/bin/sh", ["-c", "python3 '\(Paths.repoRoot)/Tests/Scripts/validate_openrpc.py' < '\(dir.path)/openrpc.json'"])
        #expect(check == (0, "ok\n"), "\(check.output)")
        let document = try JSONSerialization.jsonObject(with: Data(discovered.output.utf8)) as? [String: Any]
        let names = (document?["methods"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
        #expect(Set(names) == ["rpc.discover", "auth.login", "events.subscribe", "events.unsubscribe", "runtime.info", "apps.list", "apps.load",
                               "apps.unload", "apps.reload", "apps.launch", "session.get", "session.request", "session.abandon", "session.configure",
                               "volume.get", "volume.set", "volume.adjust", "volume.mute",
                               "sinks.list", "sinks.add", "sinks.remove", "sinks.select", "ui.get", "ui.select", "ui.button", "ui.back", "ui.image",
                               "display.get", "display.set", "nowPlaying.get", "nowPlaying.artwork", "queue.get",
                               "player.play", "player.pause", "player.togglePlayPause", "player.stop", "player.next", "player.previous",
                               "player.seek", "player.skip", "player.setRate", "player.setShuffle", "player.setRepeat", "player.like",
                               "player.dislike", "player.bookmark", "apps.move", "zones.list", "zones.bind"])
        // The validator is not a rubber stamp: a broken document fails it.
        try #"{"openrpc": "one", "info": {"title": "x", "version": "1"}, "methods": [{"name": "a", "params": [], "result": {"name": "r", "schema": {"type": 5}}}]}"#
            .write(toFile: dir.path + "/bad.json", atomically: true, encoding: .utf8)
        let bad = try runProgram("/bin/sh", ["-c", "python3 '\(Paths.repoRoot)/Tests/Scripts/validate_openrpc.py' < '\(dir.path)/bad.json'"])
        #expect(bad.status == 1)
        #expect(bad.output.contains("is not 1.x.y"))
        #expect(deckd.stop() == 0)
    }
}

extension ControlTests {
    /// Every method called once on a real deckd; each result must match the schema rpc.discover
    /// advertises for it (strict: no field the schema does not list).
    @Test func everyResultMatchesTheSchemaRpcDiscoverAdvertises() throws {
        let dir = TemporaryDirectory()
        let bundle = try Fixture.bundle(in: dir.path + "/extra", defines: ["FIXTURE_COMMANDS=0x3FFF"])
        let deckd = try daemon(["--play", "org.deck.tone:sine-440", "--output-dir", dir.path])
        let client = LineClient(path: deckd.socket)
        var id = 0
        func result(_ method: String, _ params: String = "{}") throws -> JSONValue {
            id += 1
            client.send(line: #"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params),"id":\#(id)}"#)
            while true {
                let message = try JSONValue.parse(try #require(client.readLine()))
                guard message["id"] == .int(Int64(id)) else { continue }  // a notification
                return try #require(message["result"], "\(method): \(message.encoded())")
            }
        }
        var results: JSONObject = [:]
        results["events.subscribe"] = try result("events.subscribe", #"{"topics":["apps.changed"]}"#)
        results["events.unsubscribe"] = try result("events.unsubscribe", #"{"topics":["apps.changed"]}"#)
        results["runtime.info"] = try result("runtime.info")
        results["apps.load"] = try result("apps.load", #"{"path":"\#(bundle)"}"#)
        results["apps.launch"] = try result("apps.launch", #"{"id":"org.deck.test.fixture","item":"sine-880"}"#)
        results["apps.list"] = try result("apps.list")
        // The fixture took music focus from Tone and owns now playing, with every command enabled.
        results["nowPlaying.get"] = try result("nowPlaying.get")
        let artwork = try #require(results["nowPlaying.get"]?["artwork"]?["id"]?.stringValue)
        results["nowPlaying.artwork"] = try result("nowPlaying.artwork", #"{"id":"\#(artwork)"}"#)
        results["queue.get"] = try result("queue.get")
        for method in ["play", "pause", "togglePlayPause", "next", "previous", "like", "dislike", "bookmark", "stop"] {
            results["player.\(method)"] = try result("player.\(method)")
        }
        results["player.seek"] = try result("player.seek", #"{"position":12.5}"#)
        results["player.skip"] = try result("player.skip", #"{"seconds":-10}"#)
        results["player.setRate"] = try result("player.setRate", #"{"rate":1.5}"#)
        results["player.setShuffle"] = try result("player.setShuffle", #"{"mode":"items"}"#)
        results["player.setRepeat"] = try result("player.setRepeat", #"{"mode":"one"}"#)
        results["apps.reload"] = try result("apps.reload", #"{"id":"org.deck.test.fixture"}"#)
        results["apps.unload"] = try result("apps.unload", #"{"id":"org.deck.test.fixture"}"#)
        results["session.request"] = try result("session.request", #"{"context":"navigation","name":"prompt"}"#)
        results["session.get"] = try result("session.get")
        results["session.abandon"] = try result("session.abandon", #"{"name":"prompt"}"#)
        results["volume.get"] = try result("volume.get")
        results["volume.set"] = try result("volume.set", #"{"group":"media","index":35}"#)
        results["volume.adjust"] = try result("volume.adjust", #"{"steps":1}"#)
        results["volume.mute"] = try result("volume.mute", #"{"group":"alerts","muted":true}"#)
        results["session.configure"] = try result("session.configure", #"{"duckDb":-10,"navigationDuringCall":"reject"}"#)
        results["sinks.add"] = try result("sinks.add", #"{"uri":"file:schema.opus"}"#)
        results["sinks.list"] = try result("sinks.list")
        results["sinks.select"] = try result("sinks.select", #"{"ids":[1]}"#)
        results["ui.get"] = try result("ui.get", #"{"app":"org.deck.tone"}"#)
        let rows = results["ui.get"]?["stack"]?.arrayValue?.first?["sections"]?.arrayValue ?? []
        let tone = try #require(rows.last?["items"]?.arrayValue?.first?["id"]?.intValue)
        let icon = try #require(rows.first?["items"]?.arrayValue?.first?["image"]?.intValue)
        results["ui.image"] = try result("ui.image", #"{"app":"org.deck.tone","id":\#(icon)}"#)
        results["ui.select"] = try result("ui.select", #"{"id":\#(tone)}"#)
        results["ui.button"] = try result("ui.button", #"{"id":\#(tone)}"#)
        results["ui.back"] = try result("ui.back")
        results["display.get"] = try result("display.get")
        results["display.set"] = try result("display.set", #"{"driving":true}"#)
        results["sinks.remove"] = try result("sinks.remove", #"{"id":2}"#)
        results["zones.list"] = try result("zones.list")
        results["zones.bind"] = try result("zones.bind", #"{"zone":"primary"}"#)
        results["apps.move"] = try result("apps.move", #"{"id":"org.deck.tone","zone":"primary"}"#)
        results["rpc.discover"] = try result("rpc.discover")
        // auth.login answers only on TCP; its schema is checked with a logged-in TCP client.
        let (tcpDeckd, port, _) = try tcpDaemon()
        let tcp = LineClient(port: port)
        tcp.send(line: #"{"jsonrpc":"2.0","method":"auth.login","params":{"token":"correct-horse-battery-staple"},"id":1}"#)
        results["auth.login"] = try JSONValue.parse(try #require(tcp.readLine()))["result"]
        #expect(tcpDeckd.stop() == 0)

        let input: JSONValue = ["discover": try #require(results["rpc.discover"]), "results": .object(results)]
        try input.encoded().write(toFile: dir.path + "/results.json", atomically: true, encoding: .utf8)
        let check = try runProgram("/bin/sh", ["-c", "python3 '\(Paths.repoRoot)/Tests/Scripts/validate_results.py' < '\(dir.path)/results.json'"])
        #expect(check == (0, "ok\n"), "\(check.output)")
        // Not a rubber stamp: a result with a field its schema does not list fails.
        var tampered = results
        tampered["runtime.info"] = .object((results["runtime.info"]?.objectValue ?? [:]).merging(["surprise": true]))
        let bad: JSONValue = ["discover": try #require(results["rpc.discover"]), "results": .object(tampered)]
        try bad.encoded().write(toFile: dir.path + "/bad.json", atomically: true, encoding: .utf8)
        let caught = try runProgram("/bin/sh", ["-c", "python3 '\(Paths.repoRoot)/Tests/Scripts/validate_results.py' < '\(dir.path)/bad.json'"])
        #expect(caught.status == 1)
        #expect(caught.output.contains("runtime.info: at '': Additional properties are not allowed ('surprise' was unexpected)"))
        #expect(deckd.stop() == 0)
    }
}

extension ControlTests {
    @Test func volumeFromTheCommandLine() throws {
        let deckd = try daemon()
        #expect(try ctl(deckd, ["volume"]).output.hasPrefix("media  40/40  0.0 dB  ◂ keys\nnavigation  40/40  0.0 dB\n"))
        #expect(try ctl(deckd, ["volume", "-4"]).output == "media  36/40  -6.0 dB\n")  // the keys' group: media
        #expect(try ctl(deckd, ["volume", "media", "+1"]).output == "media  37/40  -4.5 dB\n")
        #expect(try ctl(deckd, ["volume", "alerts", "20"]).output == "alerts  20/40  -30.0 dB\n")
        #expect(try ctl(deckd, ["volume", "alerts", "mute"]).output == "alerts  20/40  silent  muted\n")
        #expect(try ctl(deckd, ["volume", "alerts", "007"]).output == "alerts  7/40  -49.5 dB\n")  // still a level; and it unmutes
        let safety = try ctl(deckd, ["volume", "safety", "mute"])
        #expect(safety.status == 1)
        #expect(safety.output.contains("the safety group cannot be muted"))
        #expect(try ctl(deckd, ["volume", "media", "loud"]).status == 2)
        for odd in ["+-3", "-+3", "+", "+0x3", "-9223372036854775808"] {
            #expect(try ctl(deckd, ["volume", "media", odd]).status == 2, "volume media \(odd)")
        }
        #expect(try ctl(deckd, ["volume", "media"]).output == "media  37/40  -4.5 dB\n")
        // Without a group, a level or a mute is the keys' group's too (media while nothing else plays), shown alone.
        #expect(try ctl(deckd, ["volume", "30"]).output == "media  30/40  -15.0 dB\n")
        #expect(try ctl(deckd, ["volume", "mute"]).output == "media  30/40  silent  muted\n")
        #expect(try ctl(deckd, ["volume", "unmute"]).output == "media  30/40  -15.0 dB\n")
        let phone = LineClient(path: deckd.socket)  // during a call, the call's
        #expect(phone.call("session.request", #"{"context":"call","type":"gainTransient","name":"phone"}"#)?.contains("granted") == true)
        #expect(try ctl(deckd, ["volume", "12"]).output == "call  12/40  -42.0 dB\n")
        #expect(try ctl(deckd, ["volume", "mute"]).output == "call  12/40  silent  muted\n")
        phone.close()
        #expect(try ctl(deckd, ["volume", "media"]).output == "media  30/40  -15.0 dB\n")
        // A group that does not exist is named as such, not shown as nothing.
        for absent in ["medai", "1e20"] {
            let shown = try ctl(deckd, ["volume", absent])
            #expect(shown.status == 1 && shown.output.contains("no volume group \(absent) (the groups: media, navigation, voice, call, alerts, safety)"),
                    "\(shown)")
        }
    }
}
