import CDeckPlugin
import DeckFuzz
import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckPlugins

/// Every extension call a plugin can make, with the edges of each argument's type (NaN, the
/// infinities, ±1e308, 1e19, −0, Int32 and UInt32 extremes, huge and invalid text): each is
/// answered with a status, and the runtime's invariants hold after each.
@Suite struct PluginInputFuzzTests {
    let dir = TemporaryDirectory()
    static let doubles: [Double] = [.nan, .infinity, -.infinity, 1e308, -1e308, 1e19, -1e19, -0.0, 0, 1e9, 1e9.nextUp, -1, 0.5, 16, 17]
    static let int32s: [Int32] = [.min, -1, 0, 1, 3, 4, 99, .max]
    static let uint32s: [UInt32] = [0, 1, 32, 33, 1 << 20, .max]

    @Test func everyExtensionCallTakesTheEdgesOfItsArguments() throws {
        let harness = try StreamingHarness(freewheel: false) { $0.session.alwaysActive = false }
        let plugin = try harness.load(try Fixture.app(in: dir.path, "Radio", id: "org.example.radio"))
        try harness.runtime.focus.play(pluginID: plugin.id, item: "sine-440")
        let host = plugin.host.raw
        func table<T>(_ id: String, _ type: T.Type) throws -> T {
            try #require(host.pointee.get_extension(host, id)).assumingMemoryBound(to: T.self).pointee
        }
        let nowPlaying = try table(DECK_EXT_NOW_PLAYING, deck_host_now_playing_t.self)
        let session = try table(DECK_EXT_SESSION, deck_host_session_t.self)
        let ui = try table(DECK_EXT_UI, deck_host_ui_t.self)
        let content = try table(DECK_EXT_CONTENT, deck_host_content_t.self)
        let dispatcher = harness.runtime.makeDispatcher()
        var calls = 0
        func check(_ what: @autoclosure () -> String) {
            calls += 1
            if let broken = SchemaFuzzer.brokenInvariant(of: harness.runtime, dispatcher: dispatcher) { Issue.record("after \(what()): \(broken)") }
        }
        let huge = String(repeating: "é", count: 100_000)
        for value in PluginInputFuzzTests.doubles {
            for field in 0..<4 {
                var info = deck_now_playing_info_t()
                info.duration = 60
                info.rate = 1
                switch field {
                case 0: info.elapsed = value
                case 1: info.duration = value
                case 2: info.rate = value
                default: info.default_rate = value
                }
                _ = nowPlaying.set_info(host, &info)
                check("set_info field \(field) = \(value)")
            }
            _ = nowPlaying.set_position(host, value, 1, Int32(DECK_PLAYBACK_PLAYING.rawValue))
            _ = nowPlaying.set_position(host, 1, value, Int32(DECK_PLAYBACK_PLAYING.rawValue))
            var commands = deck_command_set_t(enabled: 1, skip_forward_seconds: value, skip_backward_seconds: value, reserved: (nil, nil))
            _ = nowPlaying.set_commands(host, &commands)
            let status = "id".withCString { id in
                var item = deck_queue_item_t()
                item.id = id
                item.duration = value
                return withUnsafePointer(to: item) { nowPlaying.set_queue(host, $0, 1, 0) }
            }
            #expect(status == DECK_OK || status == DECK_E_INVALID)
            check("set_position/set_commands/set_queue with \(value)")
        }
        for number in PluginInputFuzzTests.int32s {
            var info = deck_now_playing_info_t()
            (info.media_type, info.playback_state, info.chapter_number, info.chapter_count) = (number, number, number, number)
            _ = nowPlaying.set_info(host, &info)
            _ = nowPlaying.set_position(host, 1, 1, number)
            _ = nowPlaying.set_queue_index(host, number)
            _ = nowPlaying.set_modes(host, number, number)
            _ = nowPlaying.complete_command(host, UInt64(bitPattern: Int64(number)), number)
            _ = ui.complete(host, UInt64(bitPattern: Int64(number)))
            _ = content.complete(host, UInt64(bitPattern: Int64(number)), number)
            for flags in PluginInputFuzzTests.uint32s {
                var result: Int32 = 0
                _ = "music".withCString { context in
                    var request = deck_focus_request_t(context: context, type: number, flags: flags, reserved: (nil, nil))
                    return session.request_focus(host, &request, &result)
                }
            }
            check("int32 arguments = \(number)")
        }
        for count in PluginInputFuzzTests.uint32s where count <= 1 << 20 {
            _ = nowPlaying.set_queue(host, nil, count, 0)
            _ = content.set_now_playing_ids(host, nil, count)
            check("counts = \(count)")
        }
        for text in ["", huge, "{\"type\": \"list\", \"title\": \"\(huge)\"}", "{\"type\": \"list\", \"items\": [{\"text\": \"x\", \"image\": 18446744073709551615}]}",
                     "{\"type\": \"pointOfInterest\", \"points\": [{\"text\": \"p\", \"latitude\": 1e308, \"longitude\": -1e308}]}"] {
            _ = ui.set_root(host, text, nil, nil)
            _ = ui.push(host, text, nil, nil)
            _ = ui.update(host, .max, text, nil)
            _ = ui.present(host, text, nil)
            _ = text.withCString { title in
                var info = deck_now_playing_info_t()
                info.title = title
                return nowPlaying.set_info(host, &info)
            }
            check("text of \(text.utf8.count) bytes")
        }
        #expect(calls > 50)
        #expect(harness.runtime.plugins.plugin(id: plugin.id)?.state == .active)
    }
}
