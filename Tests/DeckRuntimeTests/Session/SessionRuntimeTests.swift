import CDeckPlugin
import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckSession
@testable import DeckPlugins

/// The session inside the real runtime, with real plugins, real audio and real files.
@Suite struct SessionRuntimeTests {
    let dir = TemporaryDirectory()

    /// An on-demand runtime (not always active) with `sinks`, paced in real time.
    func harness(sinks: [String] = [], configure: (inout RuntimeConfiguration) -> Void = { _ in }) throws -> StreamingHarness {
        try StreamingHarness(freewheel: false, sinks: sinks) {
            $0.session.alwaysActive = false
            configure(&$0)
        }
    }

    func fixture(_ name: String, id: String, entitlements: [String]) throws -> String {
        try Fixture.app(in: dir.path, name, id: id, entitlements: entitlements)
    }

    @Test(arguments: [("audio", "call", "communication"), ("charging", "music", "audio"), ("maps", "call", "communication"),
                      ("communication", "navigation", "maps")])
    func pluginsMayOnlyRequestTheContextsTheirEntitlementsAllow(entitlement: String, context: String, needed: String) throws {
        let harness = try harness()
        let plugin = try harness.load(try fixture("P", id: "org.example.p", entitlements: [entitlement]))
        #expect(throws: PluginCallError(status: .notEntitled, message: "org.example.p refused to play sine-440@\(context): request_focus: "
                                        + "org.example.p may not request \(context): that needs the \(needed) entitlement (it has: \(entitlement))")) {
            try harness.runtime.focus.play(pluginID: plugin.id, item: "sine-440@\(context)")
        }
        #expect(harness.runtime.session.arbiter.holders.isEmpty)
        #expect(!harness.runtime.session.isActive)
    }

    @Test func aCommunicationPluginPlaysACallAndMusicIsPausedThenResumed() throws {
        let harness = try harness()
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio", entitlements: ["audio"]))
        let phone = try harness.load(try fixture("Phone", id: "org.example.phone", entitlements: ["communication"]))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        harness.run(for: 0.1)
        #expect(harness.runtime.audio.isRunning)
        try harness.runtime.focus.play(pluginID: phone.id, item: "sine-880@call/2")
        #expect(harness.log.messages(from: radio.id).contains("focus: -2 resume=0"))
        phone.stopPlayback()
        #expect(harness.log.messages(from: radio.id).contains("focus: 1 resume=1"))
        #expect(harness.runtime.session.arbiter.holder(.plugin(radio.id))?.state == .playing)
    }

    @Test func unloadingAHolderRestoresTheOthersAtOnce() throws {
        let harness = try harness()
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio", entitlements: ["audio"]))
        let maps = try harness.load(try fixture("Maps", id: "org.example.maps", entitlements: ["maps"]))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        try harness.runtime.focus.play(pluginID: maps.id, item: "sine-880@navigation/3")
        #expect(harness.runtime.session.arbiter.holder(.plugin(radio.id))?.state == .ducked)
        harness.runtime.plugins.unload(maps)
        #expect(harness.log.messages(from: radio.id).contains("focus: 2 resume=0"))  // unduck
        #expect(harness.runtime.session.arbiter.holders.map(\.request.owner) == [.plugin(radio.id)])
        #expect(harness.runtime.session.targetGain(.plugin(radio.id)) == 1)
    }

    /// Apps give up focus whenever they stop, playing or not: only a real change is logged and published.
    @Test func abandoningFocusNotHeldIsNotASessionChange() throws {
        let harness = try harness()
        let idle = try harness.load(try fixture("Idle", id: "org.example.idle", entitlements: ["audio"]))
        var published: [String] = []
        let hmi = RPCConnection { published.append($0) }
        hmi.topics = ["session.changed"]
        harness.runtime.events.add(hmi)
        harness.runtime.focus.abandonFocus(.plugin(idle.id))
        harness.runtime.plugins.unload(idle)
        harness.run(for: 0.1)
        #expect(published.isEmpty, "\(published)")
        #expect(!harness.log.messages(from: "session").contains { $0.contains("abandoned focus") })
    }

    @Test func theIntegratorMayRequestAnyContext() throws {
        let harness = try harness()
        #expect(harness.runtime.focus.requestFocus(FocusRequest(owner: .integrator("chime"), context: .vehicleStatus,
                                                          type: .gainTransientMayDuck)) == .granted)
        #expect(harness.runtime.session.isActive)
        let description = harness.runtime.sessionState
        #expect(description["active"] == true)
        #expect(description["holders"]?.arrayValue?.first?["owner"] == "integrator:chime")
        #expect(description["holders"]?.arrayValue?.first?["state"] == "playing")
        #expect(description["counters"]?["granted"] == 1)
        harness.runtime.focus.abandonFocus(.integrator("chime"))
        #expect(harness.runtime.sessionState["holders"] == [])
    }

    @Test func idleDeactivationEndsTheFileLinkAndTheNextGrantStartsAnother() throws {
        let path = dir.path + "/session.opus"
        let harness = try harness(sinks: ["file:\(path)"]) { $0.session.idleTimeoutMilliseconds = 200 }
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio", entitlements: ["audio"]))
        try harness.start()
        for _ in 0..<2 {
            try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
            harness.run(for: 0.3)
            radio.stopPlayback()
            let deactivations = harness.runtime.session.counters.deactivations
            turnLoop(harness.runtime.loop, seconds: 5) { harness.runtime.session.counters.deactivations > deactivations }
        }
        #expect(harness.runtime.session.counters.activations == 2)
        #expect(harness.runtime.session.counters.deactivations == 2)
        #expect(harness.log.messages(from: radio.id).filter { $0.hasPrefix("session: ") } == ["session: 1", "session: 0", "session: 1", "session: 0"])
        turnLoop(harness.runtime.loop) { harness.runtime.sinks.list.allSatisfy(\.status.finished) }
        #expect(harness.shutDown(), "the file's writer did not finish")
        let info = try AudioAnalysis.opusinfo(path)
        #expect(info.status == 0)
        #expect(info.warnings.isEmpty, "\(info.output)")
        #expect(info.output.contains("New logical stream (#1"))
        #expect(info.output.contains("New logical stream (#2"))
        #expect(info.output.components(separatedBy: "Logical stream").count - 1 == 2)  // both links ended
    }

    @Test func aHolderPlayingOnlySilenceIsReportedAsStarvingOthers() throws {
        let harness = try harness { $0.session.starvationMilliseconds = 300 }
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio", entitlements: ["audio"]))
        try harness.runtime.focus.play(pluginID: radio.id, item: "silence")
        turnLoop(harness.runtime.loop, seconds: 5) { harness.runtime.focus.starvationReports > 0 }
        #expect(harness.runtime.focus.starvationReports == 1)
        #expect(harness.log.contains(.warning, "org.example.radio holds music focus but has played only silence"))
        #expect(harness.runtime.sessionState["counters"]?["starvationReports"] == 1)
    }

    @Test func openingAStreamWithoutFocusIsRefused() throws {
        let harness = try harness()
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio", entitlements: ["audio"]))
        let audio = try #require(radio.host.raw.pointee.get_extension(radio.host.raw, DECK_EXT_AUDIO))
            .assumingMemoryBound(to: deck_host_audio_t.self)
        #expect(audio.pointee.open_stream(radio.host.raw) == deck_status_t(DECK_E_STATE))
        #expect(radio.host.lastErrorMessage == "open_stream: org.example.radio holds no audio focus; request it first")
    }
}

extension SessionRuntimeTests {
    /// AAOS: a transient loss pauses. Paused means the plugin's content does not advance: after
    /// the fade, its render is not called until it gets focus back.
    @Test func aPausedStreamIsNotRenderedAndResumesWhereItStopped() throws {
        let harness = try harness { $0.audio.freewheel = false }
        let radio = try harness.load(try fixture("Radio", id: "org.example.radio", entitlements: ["audio"]))
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        try harness.start()
        harness.run(for: 0.3)
        let call = FocusRequest(owner: .integrator("phone"), context: .call, type: .gainTransient)
        #expect(harness.runtime.focus.requestFocus(call) == .granted)
        harness.run(for: 0.2)  // the pause fade is done
        let atPause = radio.streamCounters.renderedFrames.load(ordering: .relaxed)
        let underrunsAtPause = radio.streamCounters.underrunFrames.load(ordering: .relaxed)
        harness.run(for: 0.5)
        #expect(radio.streamCounters.renderedFrames.load(ordering: .relaxed) == atPause)
        // Not rendered is not an underrun (a host late before the pause, on a busy machine, is not this test's).
        #expect(radio.streamCounters.underrunFrames.load(ordering: .relaxed) == underrunsAtPause)
        harness.runtime.focus.abandonFocus(.integrator("phone"))
        harness.run(for: 0.3)
        #expect(radio.streamCounters.renderedFrames.load(ordering: .relaxed) > atPause + 5)
    }
}
