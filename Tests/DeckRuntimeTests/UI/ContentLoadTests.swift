import CDeckPlugin
import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckPlugins
@testable import DeckUI

/// Content trees against plugins that answer inside the call, fail, skip items, and drivers who
/// change mode: completions wait for the next loop turn, a failure is shown once and asked again
/// only by the HMI, what the HMI sees is what it selects, and the driver's place is kept.
@Suite struct ContentLoadTests {
    let dir = TemporaryDirectory()

    func loaded(_ defines: [String], time: VirtualScheduler? = nil, _ configure: (inout RuntimeConfiguration) -> Void = { _ in })
        throws -> (StreamingHarness, PluginInstance) {
        let harness = try StreamingHarness(freewheel: true, time: time) {
            $0.session.alwaysActive = false
            configure(&$0)
        }
        let bundle = try Fixture.bundle(in: dir.path, name: "UI", defines: defines,
                                        manifest: ["id": "org.deck.test.ui", "name": "UI fixture", "library": "libui.so"],
                                        library: "libui.so", source: Paths.repoRoot + "/Tests/Fixtures/ui-plugin.c")
        return (harness, try harness.load(bundle))
    }

    func content(_ harness: StreamingHarness) -> JSONValue? { harness.runtime.uiState()["content"] }

    func loads(_ harness: StreamingHarness, _ plugin: PluginInstance, _ path: String) -> Int {
        harness.log.messages(from: plugin.id).filter { $0 == "load: \(path)" }.count
    }

    @Test func aLoadCompletedInsideBeginLoadingIsReadOnTheNextTurn() throws {
        let (harness, plugin) = try loaded(["UI_SYNC_LOAD=DECK_OK"])
        _ = content(harness)
        try harness.runtime.interface.selectContent("1")
        #expect(content(harness)?["loading"] == true)  // completed, applied on the next turn
        #expect(turnLoop(harness.runtime.loop, seconds: 5) { content(harness)?["loading"] == false })
        #expect(content(harness)?["items"]?.arrayValue?.map { $0["title"] } == ["Episode 1", "Episode 2"])
        #expect(loads(harness, plugin, "1") == 1)
    }

    @Test func aFailedLoadIsShownWithItsReasonAndAskedAgainOnlyWhenTheHMISelectsIt() throws {
        let (harness, plugin) = try loaded(["UI_SYNC_LOAD=DECK_E_STATE"])
        _ = content(harness)
        try harness.runtime.interface.selectContent("1")
        #expect(turnLoop(harness.runtime.loop, seconds: 5) { content(harness)?["error"] != nil })
        #expect(content(harness)?["error"] == "org.deck.test.ui could not load it (DECK_E_STATE)")
        #expect(content(harness)?["loading"] == false)
        _ = turnLoop(harness.runtime.loop, seconds: 0.3) { false }
        for _ in 0..<5 { _ = content(harness) }
        #expect(loads(harness, plugin, "1") == 1)
        try harness.runtime.interface.selectContent("1")
        _ = content(harness)
        #expect(loads(harness, plugin, "1") == 2)
    }

    /// On virtual time: the error shows when the timeout has passed, and no time after brings a retry.
    @Test func aLoadThatTimesOutIsShownAndNotAskedAgainByItself() throws {
        let time = VirtualScheduler()
        let (harness, plugin) = try loaded(["UI_SLOW_LOAD"], time: time) { $0.ui.handlerTimeoutMilliseconds = 50 }
        _ = content(harness)
        try harness.runtime.interface.selectContent("1")
        #expect(content(harness)?["loading"] == true)  // the HMI reads the level: its load begins
        time.advance(by: 49)
        #expect(content(harness)?["error"] == nil)
        time.advance(by: 1)
        #expect(content(harness)?["error"] == "org.deck.test.ui did not finish loading within 0.05 s")
        time.advance(by: 60_000)
        #expect(loads(harness, plugin, "1") == 1)
    }

    @Test func selectionsAndPlaysCompletedInsideTheirCallsEndTheirSpinners() throws {
        let (harness, plugin) = try loaded(["UI_SYNC_LOAD=DECK_OK", "UI_SYNC_SELECT"])
        let tabs = try #require(harness.runtime.uiState()["stack"]?.arrayValue?.first?["tabs"]?.arrayValue)
        let slow = try #require(tabs[0]["sections"]?.arrayValue?.first?["items"]?.arrayValue?.first { $0["key"] == "slow" }?["id"]?.intValue)
        try harness.runtime.interface.select(UInt64(slow))
        try harness.runtime.interface.selectContent("0/2")
        _ = turnLoop(harness.runtime.loop, seconds: 0.2) { false }
        #expect(harness.runtime.uiState()["pending"] == [])
        #expect(harness.log.messages(from: plugin.id).contains("play: 0/2"))
        #expect(!harness.log.contains(.warning, "did not"))
    }

    @Test func anItemThatCannotBeReadKeepsItsSiblingsPaths() throws {
        let (harness, plugin) = try loaded(["UI_BAD_ITEM"])
        let items = try #require(content(harness)?["items"]?.arrayValue)
        #expect(items.map { $0["path"] } == ["0/0", "0/2"])
        #expect(items.map { $0["title"] } == ["FM4", "Oe3"])
        try harness.runtime.interface.selectContent("0/2")
        #expect(harness.log.messages(from: plugin.id).contains("play: 0/2"))
        #expect(throws: RPCError.invalidParams("no content item at 0/1 on org.deck.test.ui's screen; ui.get lists the paths")) {
            try harness.runtime.interface.selectContent("0/1")
        }
    }

    @Test func aRefusedSelectionAsksThePluginToLoadNothing() throws {
        let (harness, plugin) = try loaded([])
        _ = content(harness)
        #expect(throws: RPCError.invalidParams("no content item at 1/0 on org.deck.test.ui's screen; ui.get lists the paths")) {
            try harness.runtime.interface.selectContent("1/0")
        }
        #expect(loads(harness, plugin, "1") == 0)
    }

    @Test func drivingKeepsThePlaceWhenItFitsAndParkingBringsACutPlaceBack() throws {
        let (harness, _) = try loaded([])
        func browse(_ paths: [String]) throws {
            for path in paths {
                _ = content(harness)
                try harness.runtime.interface.selectContent(path)
            }
        }
        func drive(_ on: Bool) {
            var profile = harness.runtime.interface.profile
            profile.limitedUserInterfaces = on ? [.lists] : []
            harness.runtime.interface.setProfile(profile)
        }
        try browse(["2", "2/0"])
        drive(true)
        #expect(content(harness)?["path"] == "2/0")  // within the driving depth of 3
        drive(false)
        try browse(["2/0/0", "2/0/0/0"])
        drive(true)
        #expect(content(harness)?["path"] == "2/0/0")
        drive(false)
        #expect(content(harness)?["path"] == "2/0/0/0")
    }

    @Test func aTabBarCountsWhatTheLimitsCutOnEachTab() throws {
        let (harness, plugin) = try loaded([])
        let ui = try #require(plugin.host.raw.pointee.get_extension(plugin.host.raw, DECK_EXT_UI)).assumingMemoryBound(to: deck_host_ui_t.self).pointee
        let rows = (0..<40).map { "{\"key\": \"r\($0)\", \"text\": \"Row \($0)\"}" }.joined(separator: ",")
        let root = "{\"type\": \"tabBar\", \"tabs\": [{\"type\": \"list\", \"title\": \"Long\", \"items\": [\(rows)]},"
            + " {\"type\": \"list\", \"title\": \"Short\", \"items\": [{\"text\": \"One\"}]}]}"
        #expect(ui.set_root(plugin.host.raw, root, nil, nil) == DECK_OK)
        var profile = harness.runtime.interface.profile
        profile.limitedUserInterfaces = [.lists]
        harness.runtime.interface.setProfile(profile)
        let bar = try #require(harness.runtime.uiState()["stack"]?.arrayValue?.first)
        #expect(bar["dropped"] == 28)
        #expect(bar["tabs"]?.arrayValue?.map { $0["dropped"] } == [28, nil])
        #expect(ui.pop(plugin.host.raw) == DECK_E_STATE)
        #expect(String(cString: plugin.host.raw.pointee.last_error(plugin.host.raw)!) == "pop: only the root is on the stack")
    }

    @Test func noContentCallComesFromInsideThePluginsOwnHostCall() throws {
        let harness = try StreamingHarness(freewheel: true) { $0.session.alwaysActive = false }
        let watcher = RPCConnection { _ in }
        watcher.topics = ["ui.changed"]  // someone follows the screen, so every change is published
        harness.runtime.events.add(watcher)
        let bundle = try Fixture.bundle(in: dir.path, name: "UI", defines: ["UI_IMAGE_PROBE"],
                                        manifest: ["id": "org.deck.test.ui", "name": "UI fixture", "library": "libui.so"],
                                        library: "libui.so", source: Paths.repoRoot + "/Tests/Fixtures/ui-plugin.c")
        let plugin = try harness.load(bundle)
        _ = turnLoop(harness.runtime.loop, seconds: 0.3) { false }
        #expect(harness.log.messages(from: plugin.id).contains("image: 0"))
        #expect(content(harness)?["tabs"]?.arrayValue?.count == 3)  // the tree was read, after the call
        #expect(!harness.log.messages(from: plugin.id).contains { $0.hasPrefix("reentered") })
    }
}
