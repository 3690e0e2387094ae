import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckSession

/// Volume groups (AAOS's CarVolumeGroup), measured on the rendered file and through the methods.
@Suite struct VolumeGroupTests {
    let dir = TemporaryDirectory()

    @Test func anIndexIsALevelInDBAMuteIsSilenceAndNeitherClicks() throws {
        let path = dir.path + "/volume.opus"
        let harness = try StreamingHarness(freewheel: false, sinks: ["file:\(path)"]) { $0.session.alwaysActive = false }
        let radio = try harness.load(try Fixture.bundle(in: dir.path))
        try harness.start()
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        harness.run(for: 1.0)                                                                 // 0–1 s at index 40
        try harness.runtime.focus.changeVolume { groups throws(VolumeError) in try groups.set("media", index: 30) }
        harness.run(for: 1.0)                                                                 // 1–2 s at index 30
        try harness.runtime.focus.changeVolume { groups throws(VolumeError) in try groups.mute("media", true) }
        harness.run(for: 0.5)                                                                 // 2–2.5 s muted
        try harness.runtime.focus.changeVolume { groups throws(VolumeError) in try groups.mute("media", false) }
        harness.run(for: 0.5)
        #expect(harness.shutDown(), "the file's writer did not finish")

        let left = try AudioAnalysis.decodeWithFFmpeg(path).left
        func level(_ from: Double, _ to: Double) -> Double { 20 * log10(AudioAnalysis.rms(left[Int(from * 48_000)..<Int(to * 48_000)])) }
        #expect(abs(level(1.3, 1.9) - level(0.3, 0.9) - (-15)) <= 0.1, "10 steps of 1.5 dB")
        #expect(level(2.2, 2.45) < -90, "muted")
        #expect(abs(level(2.7, 2.95) - level(1.3, 1.9)) <= 0.1, "unmuted to index 30")
        for change in [1.0, 2.0, 2.5] {
            #expect(try AudioAnalysis.levelAbove(4_000, in: left, start: Int(change * 48_000) - 1_024, count: 4_096) < -90,
                    "a click at \(change) s")
        }
    }

    @Test func theMethodsRefuseWhatCannotBeAndTheKeysFollowWhatPlays() throws {
        let runtime = try Runtime(configuration: RuntimeConfiguration(), logger: LogCapture().logger)
        defer { runtime.shutdown() }
        let dispatcher = runtime.makeDispatcher()
        var notes: [String] = []
        let listener = RPCConnection { notes.append($0) }
        listener.topics = ["volume.changed"]
        runtime.events.add(listener)

        let set = try dispatcher.answer("volume.set", #"{"group":"media","index":20}"#)
        let media = set["result"]?["groups"]?.arrayValue?.first { $0["name"] == "media" }
        #expect(media?["index"] == 20)
        #expect(media?["decibels"] == -30.0)
        #expect(notes.count == 1 && notes[0].contains(#""method":"volume.changed""#))

        #expect(try dispatcher.answer("volume.set", #"{"group":"bass","index":1}"#)["error"]?["message"]
                == "Command failed: no volume group \"bass\"; known: media, navigation, voice, call, alerts, safety")
        #expect(try dispatcher.answer("volume.set", #"{"group":"media","index":41}"#)["error"]?["message"]
                == "Command failed: media volume 41 is out of range (0 to 40)")
        #expect(try dispatcher.answer("volume.mute", #"{"group":"safety","muted":true}"#)["error"]?["message"]
                == "Command failed: the safety group cannot be muted: emergency and safety sounds always play")
        #expect(try dispatcher.answer("volume.set", #"{"group":"safety","index":0}"#)["error"]?["code"] == -32004)

        // The volume keys act on the most important context playing: media by default, the call during
        // one; volume.get names that group (keys), so a client can set or mute it as well.
        #expect(try dispatcher.answer("volume.get")["result"]?["keys"] == "media")
        _ = try dispatcher.answer("volume.adjust", #"{"steps":-5}"#)
        #expect(runtime.session.volume.group(named: "media")?.index == 15)
        #expect(runtime.focus.requestFocus(FocusRequest(owner: .integrator("phone"), context: .call, type: .gainTransient)) == .granted)
        #expect(try dispatcher.answer("volume.get")["result"]?["keys"] == "call")
        #expect(notes.last?.contains(#""keys":"call""#) == true, "the keys' new group is published as it changes: \(notes)")
        _ = try dispatcher.answer("volume.adjust", #"{"steps":-100}"#)
        #expect(runtime.session.volume.group(named: "call")?.index == 0)  // clamped at the bottom
        #expect(runtime.session.volume.group(named: "media")?.index == 15)
        notes.removeAll()
        runtime.focus.abandonFocus(.integrator("phone"))
        #expect(notes.count == 1 && notes.first?.contains(#""keys":"media""#) == true, "the call ended: \(notes)")

        // Turning a muted group's volume unmutes it, as in AAOS; muting keeps the level to come back to.
        for (method, params, index) in [("volume.set", #"{"group":"media","index":18}"#, 18), ("volume.adjust", #"{"group":"media","steps":1}"#, 19)] {
            _ = try dispatcher.answer("volume.mute", #"{"group":"media","muted":true}"#)
            #expect(runtime.session.volume.group(named: "media")?.muted == true)
            _ = try dispatcher.answer(method, params)
            let media = runtime.session.volume.group(named: "media")
            #expect(media?.muted == false && media?.index == index, "\(method)")
        }
    }
}
