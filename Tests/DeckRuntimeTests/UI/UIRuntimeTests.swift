import CDeckPlugin
import DeckTestSupport
import Foundation
import Synchronization
import Testing
@testable import DeckRuntime
@testable import DeckPlugins
@testable import DeckUI

/// Templates and content trees in the real runtime, from a C plugin built with plain cc.
@Suite struct UIRuntimeTests {
    let dir = TemporaryDirectory()

    func harness(time: VirtualScheduler? = nil, _ configure: (inout RuntimeConfiguration) -> Void = { _ in }) throws -> StreamingHarness {
        try StreamingHarness(freewheel: true, time: time) {
            $0.session.alwaysActive = false
            configure(&$0)
        }
    }

    func uiFixture(_ defines: [String] = [], entitlements: [String] = ["audio"]) throws -> String {
        try Fixture.bundle(in: dir.path, name: "UI", defines: defines, manifest: ["id": "org.deck.test.ui", "name": "UI fixture", "entitlements": entitlements, "library": "libui.so"],
                           library: "libui.so", source: Paths.repoRoot + "/Tests/Fixtures/ui-plugin.c")
    }

    func ui(_ plugin: PluginInstance) throws -> deck_host_ui_t {
        try #require(plugin.host.raw.pointee.get_extension(plugin.host.raw, DECK_EXT_UI)).assumingMemoryBound(to: deck_host_ui_t.self).pointee
    }

    func state(_ harness: StreamingHarness) -> JSONValue { harness.runtime.uiState() }

    func items(_ template: JSONValue?) -> [JSONValue] { template?["sections"]?.arrayValue?.flatMap { $0["items"]?.arrayValue ?? [] } ?? [] }

    @Test func aCPluginSetsATabBarOfTwoListsWhenTheDisplayAttachesAndASelectionPushesADetail() throws {
        let harness = try harness()
        let plugin = try harness.load(try uiFixture())
        #expect(harness.log.messages(from: plugin.id).contains("set_root: 0 id=1 dropped=0"))
        var screen = state(harness)
        #expect(screen["app"] == "org.deck.test.ui")
        let root = try #require(screen["stack"]?.arrayValue?.first)
        #expect(root["type"] == "tabBar")
        let tabs = try #require(root["tabs"]?.arrayValue)
        #expect(tabs.map { $0["title"] } == ["Stations", "Podcasts"])
        #expect(items(tabs[0]).map { $0["text"] } == ["FM4", "Oe1", "Slow station"])
        #expect(items(tabs[1]).map { $0["key"] } == ["p1", "p2"])
        #expect(screen["quotaRemaining"] == 4)

        let fm4 = try #require(items(tabs[0]).first?["id"]?.intValue)
        try harness.runtime.interface.select(UInt64(fm4))
        #expect(harness.log.messages(from: plugin.id).contains("select: fm4"))
        screen = state(harness)
        let stack = try #require(screen["stack"]?.arrayValue)
        #expect(stack.count == 2)
        #expect(stack[1]["title"] == "FM4")
        #expect(items(stack[1]).map { $0["text"] } == ["Play", "Now: Morning Show"])
        #expect(screen["pending"] == [])  // the plugin completed at once
        try harness.runtime.interface.back()
        #expect(state(harness)["stack"]?.arrayValue?.count == 1)

        // Choosing the second tab shows its rows for selection.
        try harness.runtime.interface.select(UInt64(try #require(tabs[1]["id"]?.intValue)))
        #expect(state(harness)["selectedTab"] == 1)
        try harness.runtime.interface.select(UInt64(try #require(items(tabs[1]).first?["id"]?.intValue)))
        #expect(harness.log.messages(from: plugin.id).contains("select: p1"))
    }

    @Test func aSwiftPluginThroughDeckSDKGivesTheHMITheSameScreen() throws {
        func screens(_ bundle: String, _ id: String) throws -> [JSONValue] {
            let harness = try harness()
            let plugin = try harness.load(bundle)
            var seen = [harness.runtime.uiState()["stack"] ?? .null]
            let tabs = seen[0].arrayValue?.first?["tabs"]?.arrayValue ?? []
            try harness.runtime.interface.select(UInt64(try #require(items(tabs.first).first?["id"]?.intValue)))
            seen.append(harness.runtime.uiState()["stack"] ?? .null)
            #expect(harness.log.messages(from: plugin.id).contains("select: fm4"))
            #expect(plugin.id == id)
            return seen
        }
        let swiftBundle = dir.path + "/SwiftUI.deckplugin"
        try FileManager.default.createDirectory(atPath: swiftBundle, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.binDir + "/libSwiftUIFixture.so", toPath: swiftBundle + "/libSwiftUIFixture.so")
        try #"{"id": "org.deck.test.swiftui", "name": "Swift UI fixture", "version": "1.0.0", "abi": 1, "library": "libSwiftUIFixture.so", "entitlements": ["audio"]}"#
            .write(toFile: swiftBundle + "/manifest.json", atomically: true, encoding: .utf8)
        let fromC = try screens(try uiFixture(), "org.deck.test.ui")
        let fromSwift = try screens(swiftBundle, "org.deck.test.swiftui")
        #expect(fromC[1].arrayValue?.count == 2)
        #expect(fromSwift == fromC)
    }

    @Test func theNowPlayingTemplateIsTheSharedCenterWithThePluginsButtons() throws {
        let harness = try harness()
        let plugin = try harness.load(try uiFixture())
        let ui = try ui(plugin)
        var id: UInt64 = 0
        #expect(ui.push(plugin.host.raw, #"{"type": "nowPlaying", "upNext": true, "buttons": [{"key": "shuffle", "text": "Shuffle", "type": "shuffle"}]}"#, &id, nil) == DECK_OK)
        let screen = state(harness)
        let top = try #require(screen["stack"]?.arrayValue?.last)
        #expect(top["type"] == "nowPlaying" && top["upNext"] == true)
        #expect(screen["nowPlaying"]?["playbackState"] == "stopped")  // the center itself, empty here
        let shuffle = try #require(top["buttons"]?.arrayValue?.first?["id"]?.intValue)
        try harness.runtime.interface.select(UInt64(shuffle))
        #expect(harness.log.messages(from: plugin.id).contains("select: shuffle"))
        #expect(ui.push(plugin.host.raw, #"{"type": "nowPlaying"}"#, nil, nil) == DECK_E_LIMIT)
    }

    /// On virtual time: pending until the timeout has passed, completed by the runtime then.
    @Test func aSelectionNotCompletedInTimeIsCompletedByTheRuntimeAndCounted() throws {
        let time = VirtualScheduler()
        let harness = try harness(time: time) { $0.ui.handlerTimeoutMilliseconds = 50 }
        let plugin = try harness.load(try uiFixture())
        let slow = try #require(items(state(harness)["stack"]?.arrayValue?.first?["tabs"]?.arrayValue?.first).last?["id"]?.intValue)
        try harness.runtime.interface.select(UInt64(slow))
        time.advance(by: 49)
        #expect(state(harness)["pending"] == [.int(slow)])
        time.advance(by: 1)
        #expect(state(harness)["pending"] == [])
        #expect(state(harness)["handlerTimeouts"] == 1)
        #expect(harness.log.contains(.warning, "org.deck.test.ui did not complete the selection of item \(slow) within 0.05 s (ui.handlerTimeoutMs)"))
        // A completion after the timeout is refused.
        let ui = try ui(plugin)
        #expect(ui.complete(plugin.host.raw, 1) == DECK_E_STATE)
    }

    @Test func anAppThatSetsNoRootGetsAPlaceholderAndAWarning() throws {
        let harness = try harness()
        _ = try harness.load(try uiFixture(["UI_NO_ROOT"]))
        #expect(harness.log.contains(.warning, "org.deck.test.ui set no root template when the display attached; it shows a placeholder"))
        #expect(state(harness)["stack"]?.arrayValue?.first?["title"] == "UI fixture")
    }

    @Test func detachingInvalidatesTemplatesAndAttachingAsksForARootAgain() throws {
        let harness = try harness()
        let plugin = try harness.load(try uiFixture())
        let ui = try ui(plugin)
        var profile = harness.runtime.interface.profile
        profile.attached = false
        harness.runtime.interface.setProfile(profile)
        #expect(harness.log.messages(from: plugin.id).contains("display: 0"))
        #expect(ui.push(plugin.host.raw, #"{"type": "list"}"#, nil, nil) == DECK_E_STATE)
        #expect(String(cString: plugin.host.raw.pointee.last_error(plugin.host.raw)!).hasPrefix("push: no display is attached"))
        #expect(state(harness)["stack"] == nil || state(harness)["stack"] == [])
        profile.attached = true
        harness.runtime.interface.setProfile(profile)
        #expect(harness.log.messages(from: plugin.id).filter { $0.hasPrefix("set_root: 0") }.count == 2)
    }

    @Test func drivingTruncatesTheVisibleListsTellsThePluginAndParkingBringsThemBack() throws {
        let harness = try harness()
        let plugin = try harness.load(try uiFixture())
        let ui = try ui(plugin)
        let rows = (0..<40).map { "{\"key\": \"r\($0)\", \"text\": \"Row \($0)\"}" }.joined(separator: ",")
        var dropped: UInt32 = 99
        #expect(ui.push(plugin.host.raw, "{\"type\": \"list\", \"title\": \"Long\", \"items\": [\(rows)]}", nil, &dropped) == DECK_OK)
        #expect(dropped == 0)
        var profile = harness.runtime.interface.profile
        profile.limitedUserInterfaces = [.lists, .keyboard]
        harness.runtime.interface.setProfile(profile)
        var top = state(harness)["stack"]?.arrayValue?.last
        #expect(items(top).count == 12)
        #expect(top?["dropped"] == 28)
        #expect(harness.log.messages(from: plugin.id).contains { $0.hasPrefix("limits: ") && $0.contains("\"listItems\":12") })
        // A push while driving is told what it lost.
        #expect(ui.push(plugin.host.raw, "{\"type\": \"list\", \"items\": [\(rows)]}", nil, &dropped) == DECK_OK)
        #expect(dropped == 28)
        profile.limitedUserInterfaces = []
        harness.runtime.interface.setProfile(profile)
        top = state(harness)["stack"]?.arrayValue?.last
        #expect(items(top).count == 40)
        #expect(top?["dropped"] == nil)
    }

    @Test func theContentTreeIsPulledLazilyWithLoadsAndPlays() throws {
        let harness = try harness()
        let plugin = try harness.load(try uiFixture())
        var content = try #require(state(harness)["content"])
        #expect(content["tabs"]?.arrayValue?.map { $0["title"] } == ["Radio", "Podcasts", "Deep"])
        #expect(content["items"]?.arrayValue?.map { $0["title"] } == ["FM4", "Oe1", "Oe3"])
        #expect(content["items"]?.arrayValue?.first?["streaming"] == true)
        try harness.runtime.interface.selectContent("0/1")
        #expect(harness.log.messages(from: plugin.id).contains("play: 0/1"))
        try harness.runtime.interface.selectContent("1")
        content = try #require(state(harness)["content"])
        #expect(content["loading"] == true)
        #expect(harness.log.messages(from: plugin.id).contains("load: 1"))
        #expect(turnLoop(harness.runtime.loop, seconds: 5) { state(harness)["content"]?["loading"] == false })
        #expect(state(harness)["content"]?["items"]?.arrayValue?.map { $0["title"] } == ["Episode 1", "Episode 2"])
        #expect(throws: RPCError.invalidParams("no content item at 1/7 on org.deck.test.ui's screen; ui.get lists the paths")) {
            try harness.runtime.interface.selectContent("1/7")
        }
    }

    @Test func theTreeIsHeldToItsDepthSmallerWhileDrivingAndASlowLoadTimesOut() throws {
        let time = VirtualScheduler()
        let harness = try harness(time: time) { $0.ui.handlerTimeoutMilliseconds = 50 }
        let plugin = try harness.load(try uiFixture(["UI_SLOW_LOAD"]))
        _ = state(harness)
        var profile = harness.runtime.interface.profile
        profile.limitedUserInterfaces = [.lists]
        harness.runtime.interface.setProfile(profile)
        for path in ["2", "2/0", "2/0/0"] { try harness.runtime.interface.selectContent(path) }
        #expect(throws: RPCError.limit("2/0/0/0 is 4 levels deep; the content depth limit is 3 (contentDepth)")) {
            try harness.runtime.interface.selectContent("2/0/0/0")
        }
        profile.limitedUserInterfaces = []
        harness.runtime.interface.setProfile(profile)
        for path in ["2", "2/0", "2/0/0", "2/0/0/0", "2/0/0/0/0"] { try harness.runtime.interface.selectContent(path) }
        #expect(state(harness)["content"]?["path"] == "2/0/0/0/0")

        try harness.runtime.interface.selectContent("1")
        #expect(state(harness)["content"]?["loading"] == true)
        time.advance(by: 49)
        #expect(!harness.log.contains(.warning, "did not finish loading \"1\""))
        time.advance(by: 1)
        #expect(harness.log.contains(.warning, "org.deck.test.ui did not finish loading \"1\" within 0.05 s (ui.handlerTimeoutMs)"))
        #expect(state(harness)["handlerTimeouts"] == 1)
        // The HMI is shown the failure; selecting the container again asks the plugin again.
        #expect(harness.log.messages(from: plugin.id).filter { $0 == "load: 1" }.count == 1)
        try harness.runtime.interface.selectContent("1")
        _ = state(harness)
        #expect(harness.log.messages(from: plugin.id).filter { $0 == "load: 1" }.count == 2)
    }

    @Test func hostileCallsAreRefusedWithoutACrash() throws {
        let harness = try harness()
        let plugin = try harness.load(try uiFixture())
        let ui = try ui(plugin)
        let host = plugin.host.raw
        func lastError() -> String { String(cString: host.pointee.last_error(host)!) }
        #expect(ui.push(host, nil, nil, nil) == DECK_E_INVALID)
        #expect(lastError() == "push: NULL template_json")
        let invalid: [CChar] = [0x7B, -1, -2, 0x7D, 0]
        #expect(invalid.withUnsafeBufferPointer { ui.push(host, $0.baseAddress, nil, nil) } == DECK_E_INVALID)
        #expect(lastError() == "push: template_json is not valid UTF-8")
        let huge = "{\"type\": \"list\", \"title\": \"" + String(repeating: "x", count: 300_000) + "\"}"
        #expect(ui.push(host, huge, nil, nil) == DECK_E_LIMIT)
        #expect(ui.add_image(host, nil, 0, nil) == DECK_E_INVALID)
        let notAnImage: [UInt8] = [1, 2, 3, 4]
        #expect(ui.add_image(host, notAnImage, 4, nil) == DECK_E_INVALID)
        #expect(ui.update(host, 999, #"{"type": "list"}"#, nil) == DECK_E_INVALID)
        #expect(ui.complete(host, 12345) == DECK_E_STATE)
        let loopError = lastError()
        let answer = Mutex<(status: Int32, error: String)?>(nil)
        let table = try #require(host.pointee.get_extension(host, DECK_EXT_UI)).assumingMemoryBound(to: deck_host_ui_t.self)
        let raw = (UInt(bitPattern: host), UInt(bitPattern: table))
        Thread {
            let host = UnsafePointer<deck_host_t>(bitPattern: raw.0)!
            let table = UnsafePointer<deck_host_ui_t>(bitPattern: raw.1)!
            let status = table.pointee.pop(host)
            let error = String(cString: host.pointee.last_error(host)!)
            answer.withLock { $0 = (status, error) }
        }.start()
        while answer.withLock({ $0 }) == nil { usleep(1_000) }
        #expect(answer.withLock { $0?.status } == Int32(DECK_E_STATE))
        #expect(answer.withLock { $0?.error } == "pop must be called on the loop thread")
        #expect(lastError() == loopError && !loopError.isEmpty)
        // Everything before was refused; the screen is as the plugin set it.
        #expect(state(harness)["stack"]?.arrayValue?.count == 1)
    }
}
