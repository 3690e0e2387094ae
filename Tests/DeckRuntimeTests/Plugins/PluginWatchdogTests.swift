import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime

/// Plugin calls on the loop thread are timed, and a playing plugin is stopped before it goes.
@Suite struct PluginWatchdogTests {
    let dir = TemporaryDirectory()

    @Test func aSlowCallOnTheLoopThreadIsLoggedNamingThePluginAndTheCall() throws {
        let harness = try StreamingHarness(freewheel: true)
        let bundle = try Fixture.bundle(in: dir.path, defines: ["FIXTURE_SLOW_CALLBACK"])
        let plugin = try harness.load(bundle)
        #expect(turnLoop(harness.runtime.loop, seconds: 5) { harness.log.messages(from: plugin.id).contains("callback: loop thread") })
        #expect(harness.log.all.contains {
            $0.level == .warning && $0.message.hasPrefix("org.deck.test.fixture: on_callback took ")
                && $0.message.hasSuffix("ms on the loop thread (over 100 ms); every app and client waited for it")
        })
    }

    @Test func aPlayingPluginIsStoppedBeforeItIsDeactivatedAndDestroyed() throws {
        let harness = try StreamingHarness(freewheel: false)
        let plugin = try harness.load(try Fixture.bundle(in: dir.path))
        try harness.runtime.focus.play(pluginID: plugin.id, item: "sine-440")
        harness.runtime.plugins.unload(plugin)
        let lifecycle = harness.log.messages(from: plugin.id).filter { $0.hasPrefix("lifecycle: ") }
        #expect(Array(lifecycle.suffix(3)) == ["lifecycle: stop", "lifecycle: deactivate", "lifecycle: destroy"])
    }
}
