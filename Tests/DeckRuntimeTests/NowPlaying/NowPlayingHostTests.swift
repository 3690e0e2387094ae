import CDeckPlugin
import DeckTestSupport
import Foundation
import Synchronization
import Testing
@testable import DeckRuntime
@testable import DeckPlugins

/// `deck.now-playing` as a careless or hostile plugin calls it: every bad argument is refused
/// with a status and a message naming it, and what plays stays as it was.
@Suite struct NowPlayingHostTests {
    let dir = TemporaryDirectory()

    /// A runtime where the fixture plays music and owns now playing, and its host's table.
    func owner() throws -> (StreamingHarness, PluginInstance, UnsafePointer<deck_host_t>, UnsafePointer<deck_host_now_playing_t>) {
        let harness = try StreamingHarness(freewheel: false) { $0.session.alwaysActive = false }
        let plugin = try harness.load(try Fixture.bundle(in: dir.path))
        try harness.runtime.focus.play(pluginID: plugin.id, item: "sine-440")
        let host = plugin.host.raw
        let table = try #require(host.pointee.get_extension(host, DECK_EXT_NOW_PLAYING))
        return (harness, plugin, host, table.assumingMemoryBound(to: deck_host_now_playing_t.self))
    }

    /// A zeroed info with `edit` applied.
    func info(_ edit: (inout deck_now_playing_info_t) -> Void) -> deck_now_playing_info_t {
        var info = deck_now_playing_info_t()
        edit(&info)
        return info
    }

    func lastError(_ host: UnsafePointer<deck_host_t>) -> String { String(cString: host.pointee.last_error(host)!) }

    @Test func badInfoIsRefusedNamingTheField() throws {
        let (harness, _, host, table) = try owner()
        #expect(table.pointee.set_info(host, nil) == Int32(DECK_E_INVALID))
        #expect(lastError(host) == "set_info: NULL info")
        let notUTF8 = UnsafeMutablePointer<CChar>.allocate(capacity: 3)
        defer { notUTF8.deallocate() }
        notUTF8.initialize(from: [CChar(bitPattern: 0xC3), 0x28, 0], count: 3)
        let cases: [(deck_now_playing_info_t, Int32, String)] = [
            (info { $0.title = UnsafePointer(notUTF8) }, Int32(DECK_E_INVALID),
             "set_info: title is not valid UTF-8"),
            (info { $0.artist_count = 2 }, Int32(DECK_E_INVALID), "set_info: artists is NULL with a count of 2"),
            (info { $0.playback_state = 9 }, Int32(DECK_E_INVALID), "set_info: playback_state 9 is not a deck_playback_state_t (0 to 3)"),
            (info { $0.media_type = -1 }, Int32(DECK_E_INVALID), "set_info: media_type -1 is not a deck_media_type_t (0 to 3)"),
            (info { $0.elapsed = .nan }, Int32(DECK_E_INVALID), "set_info: elapsed must be a number of seconds from 0 to 1000000000.0"),
            (info { $0.elapsed = 1e19; $0.duration = -1 }, Int32(DECK_E_INVALID),
             "set_info: elapsed must be a number of seconds from 0 to 1000000000.0"),
            (info { $0.duration = .infinity }, Int32(DECK_E_INVALID),
             "set_info: duration must be a number of seconds from 0 to 1000000000.0 (or unknown)"),
            (info { $0.duration = 1e300 }, Int32(DECK_E_INVALID),
             "set_info: duration must be a number of seconds from 0 to 1000000000.0 (or unknown)"),
        ]
        for (info, status, message) in cases {
            var info = info
            #expect(table.pointee.set_info(host, &info) == status)
            #expect(lastError(host) == message)
        }
        #expect(harness.runtime.player.center.info.title == "sine-440")
    }

    @Test func artworkThatIsNoImageOrTooLargeIsRefused() throws {
        let (harness, _, host, table) = try owner()
        func setArtwork(_ artwork: [UInt8]) -> Int32 {
            artwork.withUnsafeBufferPointer { bytes in
                var info = info {
                    $0.artwork = bytes.baseAddress
                    $0.artwork_size = bytes.count
                }
                return table.pointee.set_info(host, &info)
            }
        }
        #expect(setArtwork(Array("GIF89a".utf8)) == Int32(DECK_E_INVALID))
        #expect(lastError(host) == "set_info: artwork must be PNG or JPEG bytes (its first bytes are neither signature)")
        #expect(setArtwork([0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0, count: 2 << 20)) == Int32(DECK_E_LIMIT))
        #expect(lastError(host) == "set_info: artwork of 2097155 bytes is over the limit of 1048576 (nowPlaying.maxArtworkBytes)")
        #expect(setArtwork(TestPicture.pngHeader(width: 20_000, height: 20_000)) == Int32(DECK_E_LIMIT))
        #expect(lastError(host) == "set_info: artwork of 20000×20000 pixels is over the limit of 16777216 pixels "
                + "(nowPlaying.maxArtworkPixels): make it smaller first")
        #expect(setArtwork(TestPicture.pngHeader(width: 600, height: 0)) == Int32(DECK_E_INVALID))
        #expect(harness.runtime.player.center.artwork?.mimeType == "image/png")  // the fixture's, kept
        let podcastCover = TestPicture.pngHeader(width: 3000, height: 3000, padding: 100)
        #expect(setArtwork(podcastCover) == Int32(DECK_OK), "a 3000-pixel cover, as podcast directories ask for, is taken")
        #expect(harness.runtime.player.center.artwork?.bytes == podcastCover)
    }

    @Test func aBadQueueCommandSetOrTokenIsRefused() throws {
        let (harness, _, host, table) = try owner()
        let queueBefore = harness.runtime.player.center.queue
        let status = "same".withCString { id in
            var item = deck_queue_item_t()
            item.id = id
            let items = [item, item]
            return items.withUnsafeBufferPointer { table.pointee.set_queue(host, $0.baseAddress, 2, 0) }
        }
        #expect(status == Int32(DECK_E_INVALID))
        #expect(lastError(host) == "set_queue: queue item id \"same\" appears twice; ids must be unique")
        #expect(table.pointee.set_queue(host, nil, 3, 0) == Int32(DECK_E_INVALID))
        #expect(lastError(host) == "set_queue: NULL items")
        #expect(table.pointee.set_queue_index(host, 7) == Int32(DECK_E_INVALID))
        #expect(harness.runtime.player.center.queue == queueBefore)
        var commands = deck_command_set_t(enabled: 1 << 20, skip_forward_seconds: 0, skip_backward_seconds: 0, reserved: (nil, nil))
        #expect(table.pointee.set_commands(host, &commands) == Int32(DECK_E_INVALID))
        #expect(lastError(host) == "set_commands: unknown command bits in 1048576 (commands are 0 to 13)")
        #expect(table.pointee.set_modes(host, 2, 0) == Int32(DECK_E_INVALID))
        #expect(table.pointee.complete_command(host, 99, 0) == Int32(DECK_E_STATE))
        #expect(lastError(host) == "complete_command: token 99 is not awaiting an answer (answered, timed out, or not yours)")
        #expect(table.pointee.complete_command(host, 1, 42) == Int32(DECK_E_INVALID))
    }

    /// The refusal is the calling thread's `last_error`; the loop thread's stays as it was.
    @Test func aCallFromAnotherThreadIsRefusedAndExplainedOnThatThread() throws {
        let (harness, _, host, table) = try owner()
        #expect(table.pointee.set_info(host, nil) == Int32(DECK_E_INVALID))
        let answer = Mutex<(status: Int32, error: String)?>(nil)
        let raw = (UInt(bitPattern: host), UInt(bitPattern: table))
        let thread = Thread {
            let host = UnsafePointer<deck_host_t>(bitPattern: raw.0)!
            let table = UnsafePointer<deck_host_now_playing_t>(bitPattern: raw.1)!
            let status = table.pointee.set_position(host, 1, 1, 1)
            let error = String(cString: host.pointee.last_error(host)!)
            answer.withLock { $0 = (status, error) }
        }
        thread.start()
        while answer.withLock({ $0 }) == nil { usleep(1_000) }
        #expect(answer.withLock { $0?.status } == Int32(DECK_E_STATE))
        #expect(answer.withLock { $0?.error } == "set_position must be called on the loop thread")
        #expect(lastError(host) == "set_info: NULL info")
        #expect(harness.runtime.player.center.owner == "org.deck.test.fixture")
    }

    /// A plugin thread hammering loop-thread calls while the loop reads its own `last_error`:
    /// the loop only ever reads its own refusal, and the strings it reads are never freed under it.
    @Test func refusalsOffTheLoopNeverReachTheLoopThreadsLastError() throws {
        let (harness, _, host, table) = try owner()
        let stop = Atomic<Bool>(false), stopped = Atomic<Bool>(false)
        let offLoopCalls = Atomic<Int>(0)
        let raw = (UInt(bitPattern: host), UInt(bitPattern: table))
        let thread = Thread {
            let host = UnsafePointer<deck_host_t>(bitPattern: raw.0)!
            let table = UnsafePointer<deck_host_now_playing_t>(bitPattern: raw.1)!
            while !stop.load(ordering: .relaxed) {
                _ = table.pointee.clear(host)
                _ = host.pointee.last_error(host)
                offLoopCalls.add(1, ordering: .relaxed)
            }
            stopped.store(true, ordering: .releasing)
        }
        thread.start()
        while offLoopCalls.load(ordering: .relaxed) == 0 { usleep(100) }
        var foreign = 0
        for _ in 0..<20_000 {
            _ = table.pointee.set_info(host, nil)
            if lastError(host) != "set_info: NULL info" { foreign += 1 }
        }
        stop.store(true, ordering: .relaxed)
        while !stopped.load(ordering: .acquiring) { usleep(100) }  // the plugin outlives its thread's calls
        #expect(foreign == 0)
        #expect(offLoopCalls.load(ordering: .relaxed) > 0)
        #expect(harness.runtime.player.center.owner == "org.deck.test.fixture")
    }
}
