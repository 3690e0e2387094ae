import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

/// deckd as an MPRIS player on a private session bus, driven by the real playerctl.
@Suite struct MPRISTests {
    /// A private `dbus-daemon` for one test, stopped with it.
    final class SessionBus {
        let process: ChildProgram
        let address: String

        /// Keeps `folder` (and the bus's socket in it) for as long as the bus runs.
        private var folder: TemporaryDirectory?

        convenience init(in folder: TemporaryDirectory) throws {
            try self.init(in: folder.path)
            self.folder = folder
        }

        init(in dir: String) throws {
            address = "unix:path=\(dir)/bus"
            process = try ChildProgram("/usr/bin/dbus-daemon", ["--session", "--nofork", "--nosyslog", "--address=\(address)"])
            let deadline = Date().addingTimeInterval(5)
            while !FileManager.default.fileExists(atPath: "\(dir)/bus") && Date() < deadline { usleep(10_000) }
        }

        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    @Test func playerctlSeesNowPlayingAndSteersTone() throws {
        let dir = TemporaryDirectory()
        let bus = try SessionBus(in: dir.path)
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let deckd = try DeckdProcess.firstParty(["--mpris"], environment: environment)
        #expect(deckd.waitForLog("mpris: on the session bus as org.mpris.MediaPlayer2.deck"))
        func playerctl(_ arguments: String...) throws -> (status: Int32, output: String) {
            try runProgram("/usr/bin/playerctl", ["-p", "deck"] + arguments, environment: environment, timeout: 20)
        }
        func nowPlaying(_ format: String) throws -> String {
            try deckd.deckctl(["now-playing", "--format", format]).output
        }
        #expect(try runProgram("/usr/bin/playerctl", ["-l"], environment: environment).output == "deck\n")
        #expect(try playerctl("status").output == "Stopped\n")
        #expect(try deckd.deckctl(["launch", "org.deck.tone", "sweep"]).status == 0)

        #expect(try playerctl("metadata", "--format", "{{artist}} - {{title}}").output == "Tone - Sweep 20 Hz to 20 kHz\n")
        #expect(try playerctl("metadata", "mpris:length").output == "10000000\n")
        #expect(try playerctl("status").output == "Playing\n")
        #expect(try playerctl("play-pause").status == 0)
        #expect(try nowPlaying("{{status}}") == "paused\n")
        #expect(try playerctl("status").output == "Paused\n")
        #expect(try playerctl("position", "3").status == 0)
        #expect(try nowPlaying("{{position}}") == "0:03\n")
        #expect(try playerctl("next").status == 0)
        #expect(try nowPlaying("{{title}}") == "Pink noise\n")
        #expect(try playerctl("metadata", "title").output == "Pink noise\n")
        #expect(try playerctl("loop", "Playlist").status == 0)
        #expect(try playerctl("loop").output == "Playlist\n")
        let refused = try playerctl("shuffle", "On")
        #expect(refused.status != 0)
        #expect(refused.output.contains("Command disabled: org.deck.tone does not carry out setShuffle"))
        #expect(deckd.log.contains("mpris") && !deckd.log.contains("error mpris"))
    }

    @Test func withoutASessionBusDeckdRunsOnAndSaysWhy() throws {
        let deckd = try DeckdProcess(["--plugins", Paths.corePlugins, "--mpris"],
                                     environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        #expect(deckd.waitForLog("deckd: ready"))
        #expect(deckd.log.contains("error mpris: cannot connect to the session bus") || deckd.log.contains("error mpris: cannot own"))
        #expect(deckd.process.isRunning)
    }

    /// A second deckd on the same session bus is a second player, `deck.instance<pid>`, as MPRIS
    /// asks of a second instance: not queued behind the first and logged as if it owned the name.
    @Test func aSecondDeckdOnTheBusIsASecondInstance() throws {
        let (bus, first) = try toneOnTheBus()
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let second = try DeckdProcess.firstParty(["--mpris"], environment: environment)
        let instance = "deck.instance\(second.process.processIdentifier)"
        #expect(second.waitForLog("mpris: org.mpris.MediaPlayer2.deck is held by another process; asking for org.mpris.MediaPlayer2.\(instance)"),
                "\(second.log)")
        #expect(second.waitForLog("mpris: on the session bus as org.mpris.MediaPlayer2.\(instance)\n"), "\(second.log)")
        #expect(try runProgram("/usr/bin/playerctl", ["-l"], environment: environment).output == "deck\n\(instance)\n")
        #expect(try second.deckctl(["launch", "org.deck.tone", "sine-1000"]).status == 0)
        let titles = try runProgram("/usr/bin/playerctl", ["-a", "metadata", "--format", "{{playerName}}: {{title}}"], environment: environment)
        #expect(titles.output.split(separator: "\n").sorted() == ["deck: Sweep 20 Hz to 20 kHz", "deck: Sine 1000 Hz"].sorted(), "\(titles.output)")
        #expect(second.stop() == 0)
        #expect(first.stop() == 0)
    }

    /// Artwork an app hands over as bytes reaches MPRIS clients as a file in deckd's runtime
    /// folder, which goes when deckd stops.
    @Test func artworkHandedOverAsBytesIsAFileForMPRISClients() throws {
        let dir = TemporaryDirectory()
        try Fixture.bundle(in: dir.path + "/plugins")
        let bus = try SessionBus(in: dir.path)
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let deckd = try DeckdProcess(["--plugins", dir.path + "/plugins", "--mpris"], environment: environment)
        #expect(deckd.waitForLog("mpris: on the session bus as org.mpris.MediaPlayer2.deck"))
        #expect(try deckd.deckctl(["launch", "org.deck.test.fixture", "sine-440"]).status == 0)
        var url = ""
        let deadline = Date().addingTimeInterval(5)
        while !url.hasPrefix("file://"), Date() < deadline {
            url = try runProgram("/usr/bin/playerctl", ["-p", "deck", "metadata", "mpris:artUrl"], environment: environment, timeout: 20)
                .output.trimmingCharacters(in: .whitespacesAndNewlines)
            if !url.hasPrefix("file://") { usleep(50_000) }
        }
        #expect(url.hasPrefix("file:///") && url.contains("/deck-artwork-"), "\(url)\n\(deckd.log)")
        let path = String(url.dropFirst("file://".count)).removingPercentEncoding ?? ""
        #expect(FileManager.default.contents(atPath: path) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]))
        #expect(deckd.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent), "the folder goes with deckd")
    }

    /// A private bus, and deckd with Tone playing the sweep on it as an MPRIS player.
    func toneOnTheBus() throws -> (SessionBus, DeckdProcess) {
        let bus = try SessionBus(in: TemporaryDirectory())
        let deckd = try DeckdProcess.firstParty(["--mpris"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(deckd.waitForLog("mpris: on the session bus as org.mpris.MediaPlayer2.deck"))
        #expect(try deckd.deckctl(["launch", "org.deck.tone", "sweep"]).status == 0)
        return (bus, deckd)
    }

    /// A caller that does not wait for its answer (`dbus-send` without `--print-reply`, gone at
    /// once) is served: with no plugin able to reach the bus, nobody is asked about.
    @Test func aCallerThatDoesNotWaitForItsAnswerIsServed() throws {
        let (bus, deckd) = try toneOnTheBus()
        for expected in ["paused", "playing", "paused", "playing", "paused"] {
            let sent = try runProgram("/usr/bin/dbus-send", ["--bus=\(bus.address)", "--type=method_call", "--dest=org.mpris.MediaPlayer2.deck",
                                                             "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player.PlayPause"], timeout: 20)
            #expect(sent.status == 0)
            let deadline = Date().addingTimeInterval(5)
            var status = ""
            repeat {
                status = try deckd.deckctl(["now-playing", "--format", "{{status}}"]).output
                if status != expected + "\n" { usleep(20_000) }
            } while status != expected + "\n" && Date() < deadline
            #expect(status == expected + "\n")
        }
        #expect(!deckd.log.contains("mpris: refused"), "\(deckd.log)")
        #expect(deckd.stop() == 0)
    }

    /// Any process on the session bus can call Seek, SetPosition and set Rate: offsets and positions
    /// beyond MediaTime's range and rates beyond MaximumRate are refused with InvalidArgs, and the
    /// player carries on.
    @Test func seekSetPositionAndRateBeyondTheirRangesAreRefusedWithInvalidArgs() throws {
        let (bus, deckd) = try toneOnTheBus()
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        func call(_ method: String, _ arguments: String...) throws -> (status: Int32, output: String) {
            try runProgram("/usr/bin/dbus-send", ["--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.deck",
                                                  "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player.\(method)"] + arguments,
                           environment: environment, timeout: 20)
        }
        let track = try runProgram("/usr/bin/playerctl", ["-p", "deck", "metadata", "mpris:trackid"], environment: environment)
            .output.trimmingCharacters(in: CharacterSet(charactersIn: "' \n"))
        for offset in ["9223372036854775807", "-9223372036854775808", "1000000000000001"] {
            let refused = try call("Seek", "int64:\(offset)")
            #expect(refused.status != 0)
            #expect(refused.output.contains("org.freedesktop.DBus.Error.InvalidArgs"), "Seek \(offset): \(refused.output)")
        }
        for position in ["9223372036854775807", "-1"] {
            let refused = try call("SetPosition", "objpath:\(track)", "int64:\(position)")
            #expect(refused.output.contains("org.freedesktop.DBus.Error.InvalidArgs"), "SetPosition \(position): \(refused.output)")
        }
        #expect(try call("SetPosition", "objpath:\(track)", "int64:2000000").status == 0)
        #expect(try deckd.deckctl(["now-playing", "--format", "{{position}}"]).output.hasPrefix("0:0"))
        #expect(try runProgram("/usr/bin/playerctl", ["-p", "deck", "status"], environment: environment).output == "Playing\n")
        // Rate: a value outside MinimumRate…MaximumRate is refused naming the range; 0 is Pause.
        func setRate(_ rate: String) throws -> (status: Int32, output: String) {
            try runProgram("/usr/bin/dbus-send", ["--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.deck", "/org/mpris/MediaPlayer2",
                                                  "org.freedesktop.DBus.Properties.Set", "string:org.mpris.MediaPlayer2.Player", "string:Rate",
                                                  "variant:double:\(rate)"], environment: environment, timeout: 20)
        }
        let refused = try setRate("100")
        #expect(refused.status != 0 && refused.output.contains("org.freedesktop.DBus.Error.InvalidArgs")
                && refused.output.contains("Rate is 0 (pause) or from 0.0625 to 16.0"), "\(refused.output)")
        #expect(try setRate("0").status == 0)
        #expect(try runProgram("/usr/bin/playerctl", ["-p", "deck", "status"], environment: environment).output == "Paused\n")
        #expect(deckd.stop() == 0)
    }

    /// 64 peers pressing PlayPause at once do not hold the loop: an RPC client already connected is
    /// answered meanwhile (in 0.1–0.2 s here; a loop held on the bus waits for seconds) and every
    /// peer gets its answer.
    @Test func sixtyFourPeersAtOnceDoNotHoldTheLoop() throws {
        let (bus, deckd) = try toneOnTheBus()
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        // Connected before the peers start, so the client's own start-up is not what is timed.
        let client = LineClient(path: deckd.socket)
        #expect(client.call("session.get")?.contains(#""result""#) == true)
        let peers = try (0..<64).map { _ in
            try ChildProgram("/usr/bin/dbus-send", ["--session", "--print-reply", "--dest=org.mpris.MediaPlayer2.deck", "/org/mpris/MediaPlayer2",
                                                    "org.mpris.MediaPlayer2.Player.PlayPause"], environment: environment)
        }
        // Round trips while the peers' calls arrive: the longest is what a client waited behind them.
        var longest = 0.0, whilePeersRan = 0
        let deadline = Date().addingTimeInterval(30)
        while peers.contains(where: \.isRunning) && Date() < deadline {
            let start = Date()
            #expect(client.call("session.get")?.contains(#""result""#) == true)
            longest = max(longest, Date().timeIntervalSince(start))
            whilePeersRan += 1
        }
        #expect(whilePeersRan > 0)
        #expect(longest < 2, "an RPC client waited \(longest) s behind 64 bus peers")
        #expect(peers.allSatisfy { !$0.isRunning && $0.terminationStatus == 0 })
        peers.filter(\.isRunning).forEach { $0.terminate() }
        #expect(deckd.stop() == 0)
    }
}
