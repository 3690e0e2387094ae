import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

/// Now playing through deckd and deckctl with Tone, and the state that survives a restart.
@Suite struct PlayerTests {
    let deckctl = Paths.binDir + "/deckctl"

    func daemon(_ extra: [String] = []) throws -> DeckdProcess { try DeckdProcess.firstParty(extra) }

    func ctl(_ daemon: DeckdProcess, _ arguments: [String]) throws -> (status: Int32, output: String) { try daemon.deckctl(arguments) }

    @Test func deckctlSteersToneAsPlayerctlWould() throws {
        let deckd = try daemon()
        #expect(try ctl(deckd, ["now-playing"]).output == "nothing owns now playing\n")
        #expect(try ctl(deckd, ["play"]) == (1, "deckctl: -32008 No actionable now-playing item: nothing owns now playing and nothing played before\n"))
        #expect(try ctl(deckd, ["launch", "org.deck.tone", "sweep"]).status == 0)
        #expect(try ctl(deckd, ["now-playing", "--format", "{{artist}} - {{title}} ({{duration}}, {{status}})"]).output
                == "Tone - Sweep 20 Hz to 20 kHz (0:10, playing)\n")
        #expect(try ctl(deckd, ["pause"]) == (0, ""))
        #expect(try ctl(deckd, ["now-playing", "--format", "{{status}}"]).output == "paused\n")
        #expect(try ctl(deckd, ["seek", "4"]).status == 0)
        #expect(try ctl(deckd, ["seek", "+3"]).status == 0)  // Tone enabled seek, not skip: the runtime seeks for it
        #expect(try ctl(deckd, ["now-playing", "--format", "{{position}}"]).output == "0:07\n")
        #expect(try ctl(deckd, ["toggle"]).status == 0)
        #expect(try ctl(deckd, ["now-playing", "--format", "{{status}}"]).output == "playing\n")
        #expect(try ctl(deckd, ["next"]).status == 0)
        let human = try ctl(deckd, ["now-playing"]).output
        #expect(human.hasPrefix("Pink noise — Tone\nplaying  0:0"))
        #expect(human.hasSuffix("(org.deck.tone)\n"))
        let queue = try ctl(deckd, ["queue"]).output
        #expect(queue.contains("▶ 4  Pink noise  (pink-noise)\n"))
        #expect(queue.hasSuffix("shuffle off, repeat off\n"))
        // A signal not in the queue joins at its front: the list counts places, as {{queueIndex}} does, not ids.
        #expect(try ctl(deckd, ["launch", "org.deck.tone", "sine-440"]).status == 0)
        #expect(try ctl(deckd, ["queue"]).output.hasPrefix("▶ 1  Sine 440 Hz  (sine-440)\n  2  Stereo 440 Hz left, 660 Hz right"))
        #expect(try ctl(deckd, ["now-playing", "--format", "{{queueIndex}} of {{queueCount}}"]).output == "1 of 6\n")
        _ = try ctl(deckd, ["launch", "org.deck.tone", "sweep"])
        #expect(try ctl(deckd, ["call", "player.like"]).output.contains("-32009 Command disabled: org.deck.tone does not carry out like"))
        #expect(try ctl(deckd, ["now-playing", "--format", "{{nope}}"]).status == 2)
        #expect(try ctl(deckd, ["seek", "soon"]).status == 2)
        // Only plain decimals: Double would read these too.
        for odd in ["0x10", "1e3", "+inf", "nan", "-", "1.2.3", "+-5", "1:75", "1.5:00", ":30", "1:", "1:2:3:4", "1:+5"] {
            #expect(try ctl(deckd, ["seek", odd]).status == 2, "seek \(odd)")
        }
        #expect(try ctl(deckd, ["seek", "2.5"]).status == 0)
        #expect(try ctl(deckd, ["seek", ".5"]).status == 0)
        // A time as now-playing prints it, and a skip given that way (paused, so the position holds).
        #expect(try ctl(deckd, ["pause"]) == (0, ""))
        #expect(try ctl(deckd, ["seek", "0:06"]).status == 0)
        #expect(try ctl(deckd, ["seek", "-0:02"]).status == 0)
        #expect(try ctl(deckd, ["now-playing", "--format", "{{position}}"]).output == "0:04\n")
    }

    /// Previous and next are enabled only where Tone's queue has a signal that way (or repeats
    /// all): a head unit greys them out at its ends, and a press there is refused as disabled.
    @Test func toneEnablesPreviousAndNextOnlyWhereItsQueueGoesOn() throws {
        let deckd = try daemon()
        func commands() throws -> Set<String> {
            let info = try JSONSerialization.jsonObject(with: Data(try ctl(deckd, ["--json", "now-playing"]).output.utf8)) as? [String: Any]
            return Set(info?["commands"] as? [String] ?? [])
        }
        #expect(try ctl(deckd, ["launch", "org.deck.tone", "stereo-440-660"]).status == 0)
        #expect(try commands().isSuperset(of: ["next", "play"]) && !commands().contains("previous"), "the first signal")
        #expect(try ctl(deckd, ["previous"]).output.contains("-32009 Command disabled: org.deck.tone does not carry out previous"))
        #expect(try ctl(deckd, ["launch", "org.deck.tone", "silence"]).status == 0)
        #expect(try commands().contains("previous") && !commands().contains("next"), "the last signal")
        #expect(try ctl(deckd, ["next"]).output.contains("-32009"))
        #expect(try ctl(deckd, ["call", "player.setRepeat", #"{"mode":"all"}"#]).status == 0)
        #expect(try commands().isSuperset(of: ["next", "previous"]))
        #expect(try ctl(deckd, ["next"]).status == 0)
        #expect(try ctl(deckd, ["now-playing", "--format", "{{title}}"]).output == "Stereo 440 Hz left, 660 Hz right\n", "round to the first")
    }

    /// A call while Tone is paused leaves it paused: now playing does not say "interrupted" during
    /// the call, nor "playing" after it while nothing sounds.
    @Test func aPausedToneStaysPausedThroughACall() throws {
        let deckd = try daemon()
        #expect(try ctl(deckd, ["launch", "org.deck.tone", "sine-1000"]).status == 0)
        #expect(try ctl(deckd, ["pause"]) == (0, ""))
        let call = LineClient(path: deckd.socket)
        let answer = call.call("session.request", #"{"context":"call","type":"gainTransient","name":"phone"}"#)
        #expect(answer?.contains(#""result":"granted""#) == true, "\(answer ?? "no answer")")
        usleep(300_000)
        #expect(try ctl(deckd, ["now-playing", "--format", "{{status}}"]).output == "paused\n", "during the call")
        call.close()
        usleep(500_000)
        #expect(try ctl(deckd, ["session"]).output.contains("org.deck.tone  music  gain"), "Tone holds the focus again")
        #expect(try ctl(deckd, ["now-playing", "--format", "{{status}}"]).output == "paused\n", "after the call")
        #expect(try ctl(deckd, ["play"]) == (0, ""))
        #expect(try ctl(deckd, ["now-playing", "--format", "{{status}}"]).output == "playing\n")
    }

    /// Play pressed during a call waits for the call to end; pause (or toggle) pressed before then
    /// calls it off, so the call's end does not start Tone.
    @Test(arguments: ["pause", "toggle"]) func aPauseCallsOffAPlayWaitingForACall(pause: String) throws {
        let deckd = try daemon()
        #expect(try ctl(deckd, ["launch", "org.deck.tone", "sine-1000"]).status == 0)
        #expect(try ctl(deckd, ["stop"]).status == 0)
        let call = LineClient(path: deckd.socket)
        let answer = call.call("session.request", #"{"context":"call","type":"gainTransient","name":"phone"}"#)
        #expect(answer?.contains(#""result":"granted""#) == true, "\(answer ?? "no answer")")
        #expect(try ctl(deckd, ["play"]) == (0, ""))
        #expect(try ctl(deckd, ["session"]).output.contains("pending: org.deck.tone music"), "it waits for the call")
        #expect(try ctl(deckd, [pause]) == (0, ""), "a waiting play is something to pause")
        #expect(try !ctl(deckd, ["session"]).output.contains("pending:"), "the request is withdrawn")
        call.close()
        usleep(500_000)
        #expect(try !ctl(deckd, ["session"]).output.contains("org.deck.tone"), "the call ended and Tone did not start")
        #expect(try ctl(deckd, ["now-playing", "--format", "{{status}}"]).output == "stopped\n")
    }

    /// Tone launched for the first time during a call waits for it, having published nothing;
    /// pause pressed meanwhile reaches it all the same and calls the start off.
    @Test func aPauseReachesAnAppLaunchedForTheFirstTimeDuringACall() throws {
        let deckd = try daemon()
        let call = LineClient(path: deckd.socket)
        let answer = call.call("session.request", #"{"context":"call","type":"gainTransient","name":"phone"}"#)
        #expect(answer?.contains(#""result":"granted""#) == true, "\(answer ?? "no answer")")
        #expect(try ctl(deckd, ["launch", "org.deck.tone", "sine-1000"]).status == 0)
        #expect(try ctl(deckd, ["session"]).output.contains("pending: org.deck.tone music"), "it waits for the call")
        #expect(try ctl(deckd, ["pause"]) == (0, ""), "nothing owns now playing, and the waiting app is paused")
        #expect(try !ctl(deckd, ["session"]).output.contains("pending:"), "the request is withdrawn")
        call.close()
        usleep(500_000)
        #expect(try !ctl(deckd, ["session"]).output.contains("org.deck.tone"), "the call ended and Tone did not start")
    }

    @Test func followPrintsALinePerChangeIntoAPipeAndFailsWhenDeckdGoes() throws {
        let deckd = try daemon()
        #expect(try ctl(deckd, ["launch", "org.deck.tone", "sine-1000"]).status == 0)
        let dir = TemporaryDirectory()
        let output = dir.path + "/follow.txt", errors = dir.path + "/errors.txt"
        let follow = try ChildProgram(deckctl, ["--socket", deckd.socket, "now-playing", "--follow", "--format", "{{title}} {{status}}"],
                                      output: .file(output), errors: .file(errors))
        func lines() -> [Substring] { ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n") }
        #expect(waitUntil(seconds: 10) { !lines().isEmpty }, "the first line, then the changes")
        #expect(try ctl(deckd, ["pause"]).status == 0)
        // Changes within one coalescing window fold into one line: each is awaited before the next.
        #expect(waitUntil(seconds: 10) { lines().last == "Sine 1000 Hz paused" })
        #expect(try ctl(deckd, ["next"]).status == 0)
        #expect(waitUntil(seconds: 10) { lines().last == "Sweep 20 Hz to 20 kHz playing" })
        let events = try ChildProgram(deckctl, ["--socket", deckd.socket, "events", "apps.changed"])
        usleep(300_000)
        #expect(deckd.stop() == 0)
        follow.waitUntilExit()
        events.waitUntilExit()
        #expect(events.terminationStatus == 1, "nor of the events")
        #expect(follow.terminationStatus == 1, "deckd going away is not the end of the follow")
        #expect(try String(contentsOfFile: errors, encoding: .utf8) == "deckctl: deckd closed the connection\n")
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "Sine 1000 Hz playing")
        #expect(lines.count == Set(lines).count)  // a line per change, none repeated
        #expect(lines.contains("Sine 1000 Hz paused"))
        #expect(lines.last == "Sweep 20 Hz to 20 kHz playing")
    }

    @Test func theLastSourceAndTheVolumesSurviveARestartWithoutPlayingUntilAsked() throws {
        let dir = TemporaryDirectory()
        let state = dir.path + "/state.json"
        var deckd = try daemon(["--state", state])
        #expect(try ctl(deckd, ["launch", "org.deck.tone", "sine-1000"]).status == 0)
        #expect(try ctl(deckd, ["volume", "media", "25"]).status == 0)
        deckd.process.terminate()
        deckd.process.waitUntilExit()

        deckd = try daemon(["--state", state])
        #expect(try ctl(deckd, ["volume", "media"]).output.hasPrefix("media  25/40"))
        #expect(try ctl(deckd, ["session"]).output == "output: inactive\n")
        #expect(try ctl(deckd, ["play"]).status == 0)
        #expect(try ctl(deckd, ["now-playing", "--format", "{{title}} {{status}}"]).output == "Sine 1000 Hz playing\n")
        deckd.process.terminate()
        deckd.process.waitUntilExit()

        deckd = try daemon(["--state", state, "--resume"])
        #expect(deckd.waitForLog("resumeOnStart: resuming org.deck.tone"))
        #expect(try ctl(deckd, ["now-playing", "--format", "{{title}} {{status}}"]).output == "Sine 1000 Hz playing\n")
        deckd.process.terminate()
        deckd.process.waitUntilExit()

        // The app that played last was removed since: the log says so in words.
        let saved = try String(contentsOfFile: state, encoding: .utf8)
        try saved.replacingOccurrences(of: "org.deck.tone", with: "org.example.removed").write(toFile: state, atomically: true, encoding: .utf8)
        deckd = try daemon(["--state", state, "--resume"])
        #expect(deckd.waitForLog("resumeOnStart: org.example.removed did not resume: "
                                 + "org.example.removed, which played last, is not loaded and active\n"), "\(deckd.log)")
    }

    @Test func aKillDuringSavesLeavesTheOldOrTheNewStateNeverATornOne() throws {
        let dir = TemporaryDirectory()
        let config = dir.path + "/deck.json"
        try #"{"state": {"path": "state.json", "saveDelayMs": 0}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        for round in 0..<5 {
            let deckd = try daemon(["--config", config])
            let client = LineClient(path: deckd.socket)
            for step in 0..<200 {
                _ = client.send(line: #"{"jsonrpc":"2.0","method":"volume.set","params":{"group":"media","index":\#(10 + (step + round) % 30)},"id":\#(step)}"#)
                if step == 0 { #expect(waitUntil(seconds: 5) { FileManager.default.fileExists(atPath: dir.path + "/state.json") }) }
            }
            usleep(useconds_t(round * 3_000))
            kill(deckd.process.processIdentifier, SIGKILL)
            deckd.process.waitUntilExit()
            let saved = try JSONValue.parse(contentsOfFile: dir.path + "/state.json")
            #expect(saved["version"] == 1)
            #expect(saved["volumes"]?["media"]?["index"]?.intValue != nil)
        }
        // A temporary file a kill left behind is cleared at the next start (beside the state file:
        // the config, `apps`, the plugins' data folders, and the locks on both).
        let deckd = try daemon(["--config", config])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [".apps.lock", ".state.json.lock", "apps", "deck.json", "state.json"])
        _ = deckd
    }
}

