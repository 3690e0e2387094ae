import DeckTestSupport
import Foundation
import Testing

/// deckd outlives what its clients, its files and its signals do to it.
@Suite struct DaemonSurvivalTests {
    let deckd = Paths.binDir + "/deckd"
    let deckctl = Paths.binDir + "/deckctl"
    let firstParty = Paths.corePlugins

    func ctl(_ daemon: DeckdProcess, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try runProgram(deckctl, ["--socket", daemon.socket] + arguments, timeout: 20)
    }

    @Test func clientsThatHangUpBeforeTheirAnswerDoNotKillIt() throws {
        let daemon = try DeckdProcess(["--plugins", firstParty])
        #expect(daemon.waitForLog("deckd: ready"))
        // rpc.discover's answer is large: written after the client left, it raises SIGPIPE.
        for _ in 0..<10 {
            for _ in 0..<20 {
                let client = LineClient(path: daemon.socket)
                client.send(line: #"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"#)
                client.close()
            }
            let status = try ctl(daemon, ["status"])
            #expect(status.status == 0, "\(status.output)")
        }
        #expect(daemon.process.isRunning)
        #expect(daemon.stop() == 0)
    }

    @Test func aClosedLogPipeDoesNotKillIt() throws {
        let dir = TemporaryDirectory()
        let process = try ChildProgram(deckd, ["--plugins", firstParty, "--socket", dir.path + "/d.sock", "--sink", "http://127.0.0.1:0/s.opus",
                                               "--state", "none"], errors: .pipe)
        // As `deckd 2>&1 | head`: read up to the ready line, then the reader goes away.
        var seen: [UInt8] = []
        while let byte = try process.outputHandle?.read(upToCount: 1)?.first {
            seen.append(byte)
            if byte == 10 && String(decoding: seen, as: UTF8.self).contains("deckd: ready") { break }
        }
        process.closeOutput()
        kill(process.processIdentifier, SIGUSR1)  // a log line into the closed pipe
        let status = try runProgram(deckctl, ["--socket", dir.path + "/d.sock", "status"])
        #expect(status.status == 0)
        #expect(process.isRunning)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }

    @Test func startedWithItsStandardDescriptorsClosedItNeverWritesItsLogIntoItsOwnPipes() throws {
        // As an init system that closes them, or `deckd <&- >&- 2>&-`: the numbers 0–2 would go to
        // libuv's signal pipe, which nobody drains, and the loop would block once 64 KiB were logged.
        let daemon = try DeckdProcess(["--plugins", firstParty, "--play", "org.deck.tone", "--log-level", "debug"],
                                      launcher: ["/bin/sh", "-c", "exec \"$0\" \"$@\" <&- >&- 2>&-"])
        _ = try daemon.deckctl(["now-playing"], seconds: 20) { $0.contains("playing") }
        for descriptor in 0...2 {
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(daemon.process.processIdentifier)/fd/\(descriptor)")
            #expect(target == "/dev/null", "descriptor \(descriptor) is \(target)")
        }
        // Each command logs a debug line of about 90 bytes: 1,000 of them are more than a pipe holds.
        let client = LineClient(path: daemon.socket)
        defer { client.close() }
        var answered = 0
        for id in 1...1_000 {
            guard client.call("player.togglePlayPause", id: id)?.contains(#""result""#) == true else { break }
            answered += 1
        }
        #expect(answered == 1_000)
        #expect(try daemon.deckctl(["status"]).status == 0)
        #expect(daemon.stop() == 0)
    }

    @Test func sighupRescansThePluginFoldersAndSigusr1ReportsWithoutStopping() throws {
        let dir = TemporaryDirectory()
        let daemon = try DeckdProcess(["--plugins", dir.path])
        #expect(daemon.waitForLog("ready: 0 plugin(s) loaded, 0 refused"))
        try Fixture.bundle(in: dir.path)
        kill(daemon.process.processIdentifier, SIGHUP)
        #expect(daemon.waitForLog("rescan: 1 new plugin(s), 0 refused"))
        #expect(try ctl(daemon, ["apps"]).output.hasPrefix("org.deck.test.fixture  1.0.0  active"))
        kill(daemon.process.processIdentifier, SIGUSR1)
        #expect(daemon.waitForLog("SIGUSR1 received: 1 plugin(s), 0 refused; output inactive"))
        #expect(daemon.process.isRunning)
        #expect(daemon.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: daemon.socket) == false)
    }

    /// A reload or a status asked as deckd starts (here: pending before it runs, from a parent
    /// that had them blocked) is done once deckd is ready, never the default end of the process.
    @Test func sighupAndSigusr1ThatComeAsItStartsAreHandledOnceItIsReady() throws {
        let launcher = "import os, signal, sys\n"
            + "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP, signal.SIGUSR1})\n"
            + "os.kill(os.getpid(), signal.SIGHUP); os.kill(os.getpid(), signal.SIGUSR1)\n"
            + "os.execv(sys.argv[1], sys.argv[1:])"
        let daemon = try DeckdProcess(["--plugins", firstParty, "--state", "none"], launcher: ["/usr/bin/python3", "-c", launcher])
        #expect(daemon.waitForLog("SIGHUP received: rescanning the plugin folders"))
        #expect(daemon.waitForLog("SIGUSR1 received: "))
        #expect(try ctl(daemon, ["status"]).status == 0)
        #expect(daemon.stop() == 0)
    }

    @Test func fifosAndDevicesNeverFreezeTheLoop() throws {
        let dir = TemporaryDirectory()
        mkfifo(dir.path + "/config.json", 0o600)
        let started = Date()
        let config = try runProgram(deckd, ["--config", dir.path + "/config.json"], timeout: 10)
        #expect(config.status == 2)
        #expect(config.output.contains("cannot read \(dir.path)/config.json: not a regular file"))
        #expect(Date().timeIntervalSince(started) < 5)

        let plugins = dir.path + "/plugins"
        try Fixture.bundle(in: plugins)
        unlink(plugins + "/Fixture.deckplugin/manifest.json")
        mkfifo(plugins + "/Fixture.deckplugin/manifest.json", 0o644)
        let output = dir.path + "/out"
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        mkfifo(output + "/fifo.opus", 0o600)
        let daemon = try DeckdProcess(["--plugins", plugins, "--output-dir", output])
        #expect(daemon.waitForLog("ready: 0 plugin(s) loaded, 1 refused"))
        #expect(daemon.log.contains("cannot read manifest.json: not a regular file"))
        let add = try ctl(daemon, ["call", "sinks.add", #"{"uri":"file:fifo.opus"}"#])
        #expect(add.status == 1)
        #expect(add.output.contains("is not a regular file (a FIFO, socket or device); to write into a pipe, add ?pipe to the URI"))
        #expect(try ctl(daemon, ["status"]).status == 0)
        #expect(daemon.stop(seconds: 5) == 0)
    }

    @Test func fileSinksNeverClobberNorFollowLinksAndClientsStayInTheOutputFolder() throws {
        let dir = TemporaryDirectory()
        let existing = dir.path + "/existing.opus"
        try "precious".write(toFile: existing, atomically: false, encoding: .utf8)
        let base = ["--plugins", firstParty, "--freewheel", "--duration", "0.2", "--play", "org.deck.tone:sine-440", "--socket", dir.path + "/d.sock"]
        let refused = try runProgram(deckd, base + ["--sink", "file:\(existing)"])
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.output.contains("the output has nowhere to go: no sink could open: cannot open sink file:\(existing): "
                                        + "\(existing) already exists; choose a new name, or allow overwriting"))
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "precious")

        symlink(existing, dir.path + "/link.opus")
        let linked = try runProgram(deckd, base + ["--sink", "file:\(dir.path)/link.opus", "--overwrite-files"])
        #expect(linked.status == 1, "\(linked.output)")
        #expect(linked.output.contains("is a symbolic link; output files are never written through links"))
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "precious")

        // Named twice (here through a link to its folder), the file is written by the first sink alone.
        symlink(dir.path, dir.path + "/again")
        let replaced = try runProgram(deckd, base + ["--sink", "file:\(existing)", "--sink", "file:\(dir.path)/again/existing.opus", "--overwrite-files"])
        #expect(replaced.status == 0, "\(replaced.output)")
        #expect(replaced.output.contains("cannot open sink file:\(dir.path)/again/existing.opus: sink 1 writes \(existing) already"), "\(replaced.output)")
        #expect(try AudioAnalysis.opusinfo(existing).warnings.isEmpty)

        // Over RPC: only inside the output folder, and never without one.
        let closed = try DeckdProcess(["--plugins", firstParty])
        #expect(closed.waitForLog("ready"))
        let noFolder = try ctl(closed, ["call", "sinks.add", #"{"uri":"file:\#(dir.path)/rpc.opus"}"#])
        #expect(noFolder.output.contains("clients may write files (file sinks, SDP files) only inside an output folder"))
        #expect(closed.stop() == 0)
        let output = dir.path + "/recordings"
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let open = try DeckdProcess(["--plugins", firstParty, "--output-dir", output])
        #expect(open.waitForLog("ready"))
        let escape = try ctl(open, ["call", "sinks.add", #"{"uri":"file:../escape.opus"}"#])
        #expect(escape.output.contains("../escape.opus is outside the output folder \(output)"))
        #expect(try ctl(open, ["call", "sinks.add", #"{"uri":"file:inside.opus"}"#]).status == 0)
        #expect(FileManager.default.fileExists(atPath: output + "/inside.opus"))
        // An RTP sink's SDP file is a file a client writes too: it replaced any file deckd could write.
        let victim = dir.path + "/victim.txt"
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        let sdpEscape = try ctl(open, ["call", "sinks.add", #"{"uri":"rtp://127.0.0.1:5004?pt=96&sdp=\#(victim)"}"#])
        #expect(sdpEscape.status == 1 && sdpEscape.output.contains("\(victim) is outside the output folder \(output)"), "\(sdpEscape.output)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try ctl(open, ["call", "sinks.add", #"{"uri":"rtp://127.0.0.1:5004?pt=96&sdp=inside.opus"}"#]).output.contains("already exists"))
        #expect(try ctl(open, ["call", "sinks.add", #"{"uri":"rtp://127.0.0.1:5004?pt=96&sdp=stream.sdp"}"#]).status == 0)
        #expect(try String(contentsOfFile: output + "/stream.sdp", encoding: .utf8).hasPrefix("v=0"))
        #expect(open.log.contains("a client's sinks.add was refused"))
        #expect(open.stop() == 0)
    }

    @Test func theSDPIsWrittenThroughAFreshTemporaryFileNotAPlantedLink() throws {
        let dir = TemporaryDirectory()
        let victim = dir.path + "/victim"
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        symlink(victim, dir.path + "/s.sdp.tmp")  // the old predictable name
        let result = try runProgram(deckd, ["--plugins", firstParty, "--freewheel", "--duration", "0.2", "--play", "org.deck.tone:sine-440",
                                            "--socket", dir.path + "/d.sock", "--sink", "rtp://127.0.0.1:9?sdp=\(dir.path)/s.sdp"])
        #expect(result.status == 0)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try String(contentsOfFile: dir.path + "/s.sdp", encoding: .utf8).hasPrefix("v=0\r\n"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("s.sdp.") && $0 != "s.sdp.tmp" }
        #expect(leftovers.isEmpty)
    }

    @Test func aDeletedOutputFolderIsNoticedAndReported() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/sub", withIntermediateDirectories: true)
        let daemon = try DeckdProcess(["--plugins", firstParty, "--play", "org.deck.tone:sine-440", "--sink", "file:\(dir.path)/sub/out.opus"])
        #expect(daemon.waitForLog("output started"))
        try FileManager.default.removeItem(atPath: dir.path + "/sub")
        #expect(daemon.waitForLog("the file was deleted (or its folder removed) while being written", seconds: 10))
        let sinks = try ctl(daemon, ["--json", "sinks"]).output
        #expect(sinks.contains(#""failed":true"#))
        #expect(daemon.stop() == 0)
    }

    /// An --output-dir that is a file is said at start, and again to the client that adds a sink.
    @Test func anOutputFolderThatIsAFileIsReportedAtStart() throws {
        let dir = TemporaryDirectory()
        try Data().write(to: URL(fileURLWithPath: dir.path + "/file"))
        let daemon = try DeckdProcess(["--plugins", firstParty, "--output-dir", dir.path + "/file"])
        #expect(daemon.waitForLog("ready:"))
        #expect(daemon.log.contains("warning sinks: the output folder \(dir.path)/file (files.directory) is not a folder: clients' file sinks "
                                    + "(sinks.add) are refused until it is a folder"), "\(daemon.log)")
        let add = try ctl(daemon, ["call", "sinks.add", #"{"uri":"file:rec.opus"}"#])
        #expect(add.status == 1 && add.output.contains("the output folder \(dir.path)/file (files.directory) is not a folder"), "\(add.output)")
        #expect(daemon.stop() == 0)
    }

    @Test func aRenderWhoseOnlySinkFailsOrWhosePlayCannotStartExitsNonZero() throws {
        let dir = TemporaryDirectory()
        let base = ["--plugins", firstParty, "--freewheel", "--duration", "0.5", "--socket", dir.path + "/d.sock"]
        let full = try runProgram(deckd, base + ["--play", "org.deck.tone:sine-440", "--sink", "file:/dev/full?pipe"])
        #expect(full.status == 1)
        #expect(full.output.contains("the output has nowhere to go: every sink failed during the run"))

        let absent = try runProgram(deckd, base + ["--play", "org.example.absent", "--sink", "file:\(dir.path)/a.opus"], timeout: 10)
        #expect(absent.status == 1)
        #expect(absent.output.contains("--play: no plugin with id org.example.absent"))
        #expect(!absent.output.contains("playing"))
    }

    /// `file:-` (`file:/dev/stdout?pipe`) streams to standard output when it is a pipe (`deckd … |
    /// ffplay -`); a regular file or a terminal there is refused, saying what to do instead.
    @Test(arguments: ["file:-", "file:/dev/stdout?pipe"]) func standardOutputTakesTheStreamWhenItIsAPipe(sink: String) throws {
        let dir = TemporaryDirectory()
        let run = "\"$0\" --plugins \"$1\" --freewheel --duration 0.5 --play org.deck.tone:sine-440 --state none "
            + "--socket \"$2/d.sock\" --sink '\(sink)'"
        let piped = try runProgram("/bin/sh", ["-c", "(\(run) 2>\"$2/log\"; echo $? > \"$2/status\") | cat > \"$2/out.opus\"",
                                               deckd, firstParty, dir.path], timeout: 30)
        #expect(piped.status == 0 && (try? String(contentsOfFile: dir.path + "/status", encoding: .utf8)) == "0\n",
                "\((try? String(contentsOfFile: dir.path + "/log", encoding: .utf8)) ?? "")")
        let info = try AudioAnalysis.opusinfo(dir.path + "/out.opus")
        #expect(info.status == 0 && info.warnings.isEmpty && info.output.contains("Playback length: 0m:00.5"), "\(info.output)")
        let file = try runProgram("/bin/sh", ["-c", "\(run) > \"$2/file.opus\"", deckd, firstParty, dir.path], timeout: 30)
        #expect(file.status == 1 && file.output.contains("standard output is not a pipe: the stream goes there only when deckd's output is piped"),
                "\(file.output)")
        // Under script(1), standard output is a terminal.
        let command = "'\(deckd)' --plugins '\(firstParty)' --freewheel --duration 0.5 --play org.deck.tone:sine-440 --state none "
            + "--socket '\(dir.path)/t.sock' --sink '\(sink)'"
        let terminal = try runProgram("/usr/bin/script", ["-qec", command, "/dev/null"], timeout: 30)
        #expect(terminal.output.contains("standard output is a terminal, which the binary stream would garble"), "\(terminal.output)")
    }

    /// --duration with nothing to play says what it waits for, and counts from the client's play.
    @Test func aDurationWithNothingToPlaySaysItWaitsAndEndsAfterAClientsPlay() throws {
        let dir = TemporaryDirectory()
        let daemon = try DeckdProcess(["--plugins", firstParty, "--freewheel", "--duration", "0.5", "--sink", "file:\(dir.path)/out.opus"])
        #expect(daemon.waitForLog("--duration counts audio made: deckd stops after 0.5 s of it, once something plays (--play, --resume or a client)"),
                "\(daemon.log)")
        #expect(try ctl(daemon, ["launch", "org.deck.tone", "sine-440"]).status == 0)
        #expect(daemon.waitForLog("deckd: stopped"), "\(daemon.log)")
    }

    @Test func socketPathsTheKernelWouldCutOrCannotHoldAreRefused() throws {
        let long = "/tmp/" + String(repeating: "s", count: 110) + ".sock"
        let tooLong = try runProgram(deckd, ["--plugins", firstParty, "--socket", long, "--sink", "http://127.0.0.1:0/s.opus", "--state", "none"])
        #expect(tooLong.status == 1)
        #expect(tooLong.output.contains("the path is 120 bytes; a Unix socket path must be under 108 bytes"))
        let missing = try runProgram(deckd, ["--plugins", firstParty, "--socket", "/nonexistent/dir/d.sock", "--sink", "http://127.0.0.1:0/s.opus",
                                             "--state", "none"])
        #expect(missing.status == 1)
        #expect(missing.output.contains("cannot open the control socket /nonexistent/dir/d.sock: the folder /nonexistent/dir does not exist"))
    }

    @Test func deckctlRefusesASocketServedByAnotherUser() throws {
        let dir = TemporaryDirectory()
        chmod(dir.path, 0o777)
        let path = dir.path + "/stranger.sock"
        // A stranger (uid 65534) listens where deckctl will look.
        let server = try ChildProgram("/usr/bin/python3", ["-c", """
            import os, socket, sys, time
            os.setgid(65534); os.setuid(65534)
            s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
            print("listening", flush=True)
            c, _ = s.accept(); time.sleep(5)
            """, path], output: .pipe)
        defer { server.terminate() }
        _ = try server.outputHandle?.read(upToCount: 9)
        let result = try runProgram(deckctl, ["--socket", path, "status"])
        #expect(result.status == 3)
        #expect(result.output.contains("it is served by uid 65534"))
        #expect(result.output.contains("refusing to talk to it"))
    }
}
