import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckNowPlaying
@testable import DeckPlugins
import DeckSession
import DeckABI

/// Now playing inside the real runtime: ownership follows music focus, remote commands reach the
/// owner (or are refused before it), answers come late or never, the last source resumes.
@Suite struct PlayerRuntimeTests {
    let dir = TemporaryDirectory()

    func harness(time: VirtualScheduler? = nil, _ configure: @escaping (inout RuntimeConfiguration) -> Void = { _ in }) throws -> StreamingHarness {
        try StreamingHarness(freewheel: false, time: time) {
            $0.session.alwaysActive = false
            configure(&$0)
        }
    }

    func fixture(_ name: String, id: String, entitlements: [String] = ["audio"], defines: [String] = []) throws -> String {
        try Fixture.app(in: dir.path, name, id: id, entitlements: entitlements, defines: defines)
    }

    /// Sends one request on `connection`; returns the answer if it came at once, and keeps later ones in `lines`.
    final class Client {
        var lines: [JSONValue] = []
        lazy var connection = RPCConnection { [weak self] line in self?.lines.append((try? JSONValue.parse(line)) ?? .null) }

        func call(_ dispatcher: RPCDispatcher, _ method: String, _ params: String = "{}") -> JSONValue? {
            let request = #"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params),"id":7}"#
            return dispatcher.handle(request, connection: connection).flatMap { try? JSONValue.parse($0) }
        }
    }

    @Test func theMusicHolderOwnsNowPlayingAndAnotherPluginIsRefusedNamingIt() throws {
        let harness = try harness()
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio"))
        let podcasts = try harness.load(try fixture("Podcasts", id: "org.example.podcasts"))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        #expect(harness.log.messages(from: radio.id).contains("now playing: 0 "))
        #expect(harness.runtime.player.center.owner == radio.id)
        #expect(harness.runtime.player.center.info.title == "sine-440")

        try harness.runtime.focus.play(pluginID: podcasts.id, item: "sine-880")  // permanent gain: the radio loses for good
        #expect(harness.runtime.player.center.owner == podcasts.id)
        #expect(harness.runtime.player.center.info.title == "sine-880")
        radio.deliverCallback()
        #expect(harness.log.messages(from: radio.id).contains(
            "set_position: -7 set_position: org.example.radio does not own now playing: org.example.podcasts does "
            + "(it holds, or last held, music focus)"))
        podcasts.deliverCallback()
        #expect(harness.log.messages(from: podcasts.id).contains("set_position: 0 "))
        #expect(harness.runtime.player.center.info.elapsed(at: harness.runtime.loop.now) >= 5)
    }

    @Test func anOwnerPausedByACallKeepsNowPlayingAndAnotherContextNeverOwnsIt() throws {
        let harness = try harness()
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio"))
        let phone = try harness.load(try fixture("Phone", id: "org.example.phone", entitlements: ["communication"]))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        try harness.runtime.focus.play(pluginID: phone.id, item: "sine-880@call/2")
        #expect(harness.runtime.session.arbiter.holder(.plugin(radio.id))?.state == .paused)
        #expect(harness.runtime.player.center.owner == radio.id)
        #expect(harness.log.messages(from: phone.id).contains {
            $0.hasPrefix("now playing: -7 set_info: org.example.phone does not own now playing: org.example.radio does")
        })
        radio.deliverCallback()
        #expect(harness.log.messages(from: radio.id).contains("set_position: 0 "))
        // It stops and gives focus up: it still owns now playing, as the one that held it last.
        radio.stopPlayback()
        #expect(harness.runtime.player.center.owner == radio.id)
    }

    @Test(arguments: [("player.play", "{}", "command: 0 value=0 mode=0"), ("player.pause", "{}", "command: 1 value=0 mode=0"),
                      ("player.next", "{}", "command: 4 value=0 mode=0"), ("player.seek", #"{"position":30}"#, "command: 6 value=30 mode=0"),
                      ("player.togglePlayPause", "{}", "command: 1 value=0 mode=0"), ("player.skip", #"{"seconds":-5}"#, "command: 6 value=0 mode=0")])
    func aRemoteCommandReachesTheOwner(method: String, params: String, logged: String) throws {
        let harness = try harness()
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio"))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        let dispatcher = harness.runtime.makeDispatcher()
        let answer = try dispatcher.answer(method, params)
        #expect(answer["result"]?["owner"] == "org.example.radio")
        #expect(answer["result"]?["result"] == "success")
        // Toggle becomes pause (it plays), skip becomes a seek (it enabled no skip) from 0 s, kept at 0.
        #expect(harness.log.messages(from: radio.id).contains(logged))
    }

    @Test func aDisabledCommandIsRefusedWithoutReachingTheOwner() throws {
        let harness = try harness()
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio"))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        let answer = try harness.runtime.makeDispatcher().answer("player.like")
        #expect(answer["error"]?["code"] == -32009)
        #expect(answer["error"]?["message"] == "Command disabled: org.example.radio does not carry out like (it enabled: play, pause, next, seek)")
        #expect(!harness.log.messages(from: radio.id).contains { $0.hasPrefix("command:") })
    }

    @Test(arguments: [(1, -32007, "No such content: org.example.radio has no such item for next"),
                      (2, -32008, "No actionable now-playing item: org.example.radio has nothing to next"),
                      (3, -32004, "Command failed: org.example.radio could not carry out next"),
                      (9, -32004, "Command failed: org.example.radio could not carry out next")])
    func theOwnersAnswerMapsToAnError(result: Int, code: Int, message: String) throws {
        let harness = try harness()
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio", defines: ["FIXTURE_COMMAND_RESULT=\(result)"]))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        let answer = try harness.runtime.makeDispatcher().answer("player.next")
        #expect(answer["error"]?["code"] == .int(Int64(code)))
        #expect(answer["error"]?["message"] == .string(message))
        // Pressed again and again, it is logged once, not once a press.
        for _ in 0..<20 { _ = try harness.runtime.makeDispatcher().answer("player.next") }
        #expect(harness.log.messages(from: "nowplaying").filter { $0.hasPrefix("org.example.radio answered next:") }.count == 1,
                "\(harness.log.messages(from: "nowplaying"))")
    }

    @Test func aLateAnswerGoesOutWhenTheOwnerCompletesIt() throws {
        let harness = try harness()
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio", defines: ["FIXTURE_COMMAND_RESULT=-1"]))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        let client = Client()
        let dispatcher = harness.runtime.makeDispatcher()
        #expect(client.call(dispatcher, "player.pause") == nil)
        #expect(client.lines.isEmpty)
        radio.deliverCallback()
        #expect(harness.log.messages(from: radio.id).contains("complete: 0 "))
        #expect(client.lines.count == 1)
        #expect(client.lines.first?["id"] == 7)
        #expect(client.lines.first?["result"]?["result"] == "success")
    }

    /// A completion inside the command call that handed out its token answers the caller once,
    /// over the socket's same path, and leaves nothing waiting.
    @Test func aCommandCompletedInsideItsOwnCallIsAnsweredOnce() throws {
        let harness = try harness()
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio", defines: ["FIXTURE_COMMAND_RESULT=-1", "FIXTURE_COMPLETE_INSIDE"]))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        let client = Client()
        let dispatcher = harness.runtime.makeDispatcher()
        let answer = client.call(dispatcher, "player.pause")
        harness.run(for: 0.1)
        let answers = (answer.map { [$0] } ?? []) + client.lines
        #expect(answers.count == 1)
        #expect(answers.first?["result"]?["result"] == "success")
        #expect(harness.log.messages(from: radio.id).contains("complete inside: 0"))
        #expect(!harness.log.contains(.warning, "did not answer"))
    }

    /// On virtual time: the command is answered failed exactly when its timeout has passed.
    @Test func anUnansweredCommandTimesOutAsFailedAndALateCompletionIsRefused() throws {
        let time = VirtualScheduler()
        let harness = try harness(time: time) { $0.nowPlaying.commandTimeoutMilliseconds = 50 }
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio", defines: ["FIXTURE_COMMAND_RESULT=-1"]))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        let client = Client()
        let dispatcher = harness.runtime.makeDispatcher()
        // In a batch, the answer waits for the late member and goes out whole.
        let batch = #"[{"jsonrpc":"2.0","method":"nowPlaying.get","id":1},{"jsonrpc":"2.0","method":"player.next","id":2}]"#
        #expect(dispatcher.handle(batch, connection: client.connection) == nil)
        time.advance(by: 49)
        #expect(client.lines.isEmpty, "49 ms: still waiting for the app")
        time.advance(by: 1)
        let answers = try #require(client.lines.first?.arrayValue)
        #expect(answers.map { $0["id"] } == [1, 2])
        #expect(answers[1]["error"]?["message"] == "Command failed: org.example.radio could not carry out next")
        #expect(harness.log.all.contains { $0.message == "org.example.radio did not answer next within 50 ms; answered commandFailed" })
        radio.deliverCallback()
        #expect(harness.log.messages(from: radio.id).contains {
            $0.hasPrefix("complete: -4 complete_command: token 1 is not awaiting an answer")
        })
    }

    @Test func withNoOwnerPlayResumesTheLastSourceAndOtherCommandsHaveNothingToActOn() throws {
        let harness = try harness()
        let dispatcher = harness.runtime.makeDispatcher()
        #expect(try dispatcher.answer("player.play")["error"]?["message"]
                == "No actionable now-playing item: nothing owns now playing and nothing played before")
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio"))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-550")
        radio.stopPlayback()
        harness.runtime.player.release(radio.id)  // as when its plugin goes away, or after a restart
        #expect(harness.runtime.player.center.owner == nil)
        #expect(harness.runtime.player.lastSource?.itemKey == "sine-550")
        #expect(try dispatcher.answer("player.next")["error"]?["code"] == -32008)
        let answer = try dispatcher.answer("player.play")
        #expect(answer["result"]?["owner"] == "org.example.radio")
        #expect(harness.runtime.player.center.owner == radio.id)
        #expect(harness.runtime.output.hasStream(radio.id))
    }

    /// A music start waiting for the focus (a call holds it) is the driver's newest choice: pause,
    /// stop and toggle go to its app, which has published nothing yet, to call the start off;
    /// play and the rest still go to the owner, and all go there again once the request is gone.
    @Test func pauseStopAndToggleReachTheAppWhoseStartWaitsForTheFocus() throws {
        let harness = try harness()
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio"))
        let podcasts = try harness.load(try fixture("Podcasts", id: "org.example.podcasts"))
        let phone = try harness.load(try fixture("Phone", id: "org.example.phone", entitlements: ["communication"]))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        try harness.runtime.focus.play(pluginID: phone.id, item: "sine-880@call/2")
        let waits = harness.runtime.focus.requestFocus(FocusRequest(owner: .plugin(podcasts.id), context: .music, type: .gain,
                                                                    acceptsDelayedFocus: true))
        guard case .delayed = waits else { Issue.record("\(waits)"); return }
        #expect(harness.runtime.player.center.owner == radio.id)
        let dispatcher = harness.runtime.makeDispatcher()
        for method in ["player.pause", "player.togglePlayPause", "player.stop", "player.play"] {
            #expect(try dispatcher.answer(method)["result"]?["result"] == "success", "\(method)")
        }
        func commands(_ plugin: PluginInstance) -> [String] { harness.log.messages(from: plugin.id).filter { $0.hasPrefix("command:") } }
        #expect(commands(podcasts) == ["command: 1 value=0 mode=0", "command: 1 value=0 mode=0", "command: 3 value=0 mode=0"])
        #expect(commands(radio) == ["command: 0 value=0 mode=0"], "play is the owner's")
        harness.runtime.focus.abandonFocus(.plugin(podcasts.id))
        #expect(try dispatcher.answer("player.pause")["result"]?["owner"] == "org.example.radio")
    }

    @Test func aPausedOwnerIsResumedByLaunchingIt() throws {
        let harness = try harness()
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio"))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        _ = try harness.runtime.player.handle(.setPosition(elapsed: 3, rate: 0, state: .paused), from: radio.id).map { throw $0 }
        let answer = try harness.runtime.makeDispatcher().answer("apps.launch", #"{"id":"org.example.radio"}"#)
        #expect(answer["result"]?["id"] == "org.example.radio")
        #expect(harness.log.messages(from: radio.id).contains("command: 0 value=0 mode=0"))
        #expect(harness.log.messages(from: radio.id).filter { $0.hasPrefix("now playing:") }.count == 1)  // not restarted
    }

    /// Never sent from inside the call that changed it: a hundred updates in one turn are one
    /// notification on the next turn carrying the last; a change within its window waits for its end.
    @Test func aHundredUpdatesInAWindowMakeTwoNotifications() throws {
        let time = VirtualScheduler()
        let harness = try harness(time: time)
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio"))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        let client = Client()
        client.connection.topics = ["nowPlaying.changed"]
        harness.runtime.events.add(client.connection)
        time.advance(by: 500)  // the windows the start opened close
        client.lines = []
        for step in 0..<100 {
            _ = harness.runtime.player.handle(.setPosition(elapsed: Double(step) * 0.6, rate: 1, state: .playing), from: radio.id)
        }
        #expect(client.lines.isEmpty)
        time.runDue()  // the next loop turn
        #expect(client.lines.count == 1)
        guard case .double(let elapsed)? = client.lines.last?["params"]?["elapsed"] else { Issue.record("no elapsed"); return }
        #expect(elapsed >= 59.4)
        _ = harness.runtime.player.handle(.setPosition(elapsed: 10, rate: 1, state: .playing), from: radio.id)
        time.advance(by: 99)
        #expect(client.lines.count == 1, "the window (100 ms) is open")
        time.advance(by: 1)
        #expect(client.lines.count == 2)
        let last = client.lines.last?["params"]?["elapsed"]?.doubleValue ?? 0
        #expect(abs(last - 10.1) < 1e-9, "the state as it is at the window's end: 10 s plus the window's 100 ms played")
    }
}
