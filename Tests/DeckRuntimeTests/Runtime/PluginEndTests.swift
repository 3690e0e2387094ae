import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckPlugins

/// However a playing plugin ends (unloaded, crashed, hung, over its loop budget), one path
/// releases its stream, focus, now playing and screens: the session is left with nothing of it
/// and the output deactivates when idle.
@Suite struct PluginEndTests {
    let dir = TemporaryDirectory()

    enum Ending: String, CaseIterable { case unload, crash, hang }

    @Test(arguments: Ending.allCases)
    func theOutputGoesIdleAfterAPlayingPluginEnds(ending: Ending) throws {
        // A crash needs a host process to die, a hang a render inside deckd's own process.
        let isolation: IsolationPolicy.Mode = ending == .crash ? .process : .inline
        let harness = try StreamingHarness(freewheel: false, isolation: isolation) {
            $0.session.alwaysActive = false
            $0.session.idleTimeoutMilliseconds = 300
            $0.isolation.restartDelayMilliseconds = 60_000  // no restart while the test watches
        }
        let plugin = try harness.load(try Fixture.app(in: dir.path, "Radio", id: "org.example.radio"))
        try harness.runtime.focus.play(pluginID: plugin.id, item: "sine-440")
        #expect(turnLoop(harness.runtime.loop, seconds: 5) { harness.runtime.session.isActive })
        #expect(harness.runtime.player.center.owner == plugin.id)
        harness.run(for: 0.3)
        switch ending {
        case .unload: harness.runtime.plugins.unload(plugin)
        case .crash: _ = try? harness.runtime.focus.play(pluginID: plugin.id, item: "segv")  // its process dies during the call
        case .hang: try harness.runtime.focus.play(pluginID: plugin.id, item: "hang")
        }
        #expect(turnLoop(harness.runtime.loop, seconds: 10) { !harness.runtime.session.isActive }, "the output stayed active after the \(ending)")
        #expect(harness.runtime.session.streams.isEmpty)
        #expect(harness.runtime.session.arbiter.holders.isEmpty)
        #expect(harness.runtime.player.center.owner == nil)
    }
}
