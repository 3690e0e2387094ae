import CDeckPlugin
import DeckTestSupport
import Testing
@testable import DeckRuntime
@testable import DeckPlugins
@testable import DeckSDK
@testable import DeckUI

/// Images in the real runtime: `add_image` and `remove_image` from a C plugin built with plain cc,
/// held to the per-plugin budget, and DeckSDK's `DeckImageCache`, which removes what a screen no
/// longer shows.
@Suite struct ImageRuntimeTests {
    let dir = TemporaryDirectory()

    func loaded(_ configure: (inout RuntimeConfiguration) -> Void = { _ in }) throws -> (StreamingHarness, PluginInstance) {
        let harness = try StreamingHarness(freewheel: true) {
            $0.session.alwaysActive = false
            configure(&$0)
        }
        let plugin = try harness.load(try Fixture.bundle(in: dir.path, name: "UI", manifest: ["id": "org.deck.test.ui", "library": "libui.so"],
                                                         library: "libui.so", source: Paths.repoRoot + "/Tests/Fixtures/ui-plugin.c"))
        return (harness, plugin)
    }

    func png(_ size: Int, _ fill: UInt8) -> [UInt8] { [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: fill, count: size - 8) }

    func list(_ images: [UInt64]) -> DeckTemplate {
        .list("Images", items: images.enumerated().map { DeckItem(key: "\($0.offset)", "Row", image: $0.element) })
    }

    /// `plugin`'s host table for images, and `add_image` through it.
    func imageCalls(_ plugin: PluginInstance) throws -> (ui: deck_host_ui_t, add: ([UInt8]) -> (status: Int32, id: UInt64)) {
        let host = plugin.host.raw
        let ui = try #require(host.pointee.get_extension(host, DECK_EXT_UI)).assumingMemoryBound(to: deck_host_ui_t.self).pointee
        return (ui, { bytes in
            var id: UInt64 = 0
            let status = bytes.withUnsafeBytes { ui.add_image(host, $0.baseAddress, $0.count, &id) }
            return (status, id)
        })
    }

    @Test func aPluginThatNeverRemovesIsHeldToItsBudgetAndToldWhatToDo() throws {
        let (harness, plugin) = try loaded { $0.ui.maxImageTotalBytes = 1 << 20 }
        let host = plugin.host.raw
        let (ui, add) = try imageCalls(plugin)
        // A cover per track, never removed: the same cover again costs nothing, new ones fill the budget.
        let first = add(png(300_000, 1))
        for _ in 0..<50 { #expect(add(png(300_000, 1)) == first) }
        #expect(add(png(300_000, 2)).status == DECK_OK && add(png(300_000, 3)).status == DECK_OK)
        #expect(add(png(300_000, 4)).status == DECK_E_LIMIT)
        #expect(String(cString: host.pointee.last_error(host)!)
                == "add_image: the app's images would take 1200000 bytes, over the limit of 1048576 (ui.maxImageTotalBytes): remove_image() the ones no longer shown")
        #expect(ui.remove_image(host, first.id) == DECK_OK)
        #expect(add(png(300_000, 4)).status == DECK_OK)
        let usage = harness.runtime.interface.apps[plugin.id]?.imageUsage
        #expect(usage?.count == 3 && usage?.bytes == 900_000)
        #expect(plugin.state == .active)
    }

    /// `ui.maxImagePixels` is what the host table holds an image's header to.
    @Test func anImageOfMorePixelsThanTheConfigAllowsIsRefused() throws {
        let (harness, plugin) = try loaded { $0.ui.maxImagePixels = 1 << 16 }
        let host = plugin.host.raw
        let add = try imageCalls(plugin).add
        #expect(add(TestPicture.pngHeader(width: 257, height: 256)).status == DECK_E_LIMIT)
        #expect(String(cString: host.pointee.last_error(host)!)
                == "add_image: an image of 257×256 pixels is over the limit of 65536 pixels (ui.maxImagePixels): make it smaller first")
        #expect(add(TestPicture.pngHeader(width: 256, height: 256)).status == DECK_OK)
        #expect(harness.runtime.interface.apps[plugin.id]?.imageUsage.count == 1)
    }

    /// An HMI keeps what it fetched by app and id: a reloaded app's new images, templates and items
    /// get ids its earlier run never gave, so no cached picture or kept item id meets something else.
    @Test func aReloadedAppNeverMeetsItsEarlierIds() throws {
        let (harness, plugin) = try loaded()
        let before = DeckHost(raw: plugin.host.raw)
        let image = try before.addImage(png(100, 1))
        let root = try before.setRoot(list([image])).id
        let reloaded = try #require(harness.runtime.supervisor.reload(plugin.id))
        let after = DeckHost(raw: reloaded.host.raw)
        let app = try #require(harness.runtime.interface.apps[plugin.id])
        #expect(app.image(image) == nil, "the earlier run's image left with it")
        let again = try after.addImage(png(100, 2))
        #expect(again > max(image, root), "image \(again) after image \(image) and template \(root)")
        #expect(try after.setRoot(list([again])).id > again)
    }

    /// A station list with more pictures than the budget: those refused are not handed over again
    /// at every refresh of the screen (megabytes each time), only once the cache made room.
    @Test func theSDKsCacheOffersARefusedImageAgainOnlyOnceItMadeRoom() throws {
        let (harness, plugin) = try loaded { $0.ui.maxImageTotalBytes = 1 << 20 }
        let host = DeckHost(raw: plugin.host.raw)
        let app = try #require(harness.runtime.interface.apps[plugin.id])
        let cache = DeckImageCache(host: host)
        var lastError: String { String(cString: plugin.host.raw.pointee.last_error(plugin.host.raw)!) }
        let pictures = (1...4).map { png(300_000, UInt8($0)) }
        func screen() -> [UInt64?] { pictures.indices.map { cache.id("station \($0)", pictures[$0]) } }
        let first = screen()
        #expect(first.prefix(3).allSatisfy { $0 != nil } && first[3] == nil, "three fit in 1 MiB: \(first)")
        #expect(lastError.hasPrefix("add_image: the app's images would take 1200000 bytes"))
        cache.sweep()
        #expect(throws: DeckError.self) { try host.removeImage(999_999) }
        let marker = lastError
        #expect(screen() == first && lastError == marker, "the refused picture was not offered again")
        cache.sweep()
        #expect(harness.log.all.filter { $0.message.hasPrefix("an image is not shown: add_image: ") }.count == 1, "said once")

        // A screen without the first station's picture: removed at the sweep, so the refused one fits.
        _ = pictures.indices.dropFirst().map { cache.id("station \($0)", pictures[$0]) }
        cache.sweep()
        #expect(cache.id("station 3", pictures[3]) != nil && app.imageUsage.count == 3)
    }

    @Test func theSDKsCacheRemovesWhatTheScreenNoLongerShows() throws {
        let (harness, plugin) = try loaded()
        let host = DeckHost(raw: plugin.host.raw)
        let app = try #require(harness.runtime.interface.apps[plugin.id])
        let cache = DeckImageCache(host: host)
        let (one, two, three) = (png(100, 1), png(100, 2), png(100, 3))

        // One cover, named at every refresh: handed over once.
        let cover = try #require(cache.id("cover", one))
        let root = try host.setRoot(list([cover])).id
        cache.sweep()
        #expect(cache.id("cover", one) == cover)
        try host.update(root, list([cover]))
        cache.sweep()
        #expect(app.imageUsage.count == 1)

        // The track changed: the new cover is added, the old one removed once the screen moved on.
        let next = try #require(cache.id("cover", two))
        try host.update(root, list([next]))
        cache.sweep()
        #expect(app.image(cover) == nil && app.image(next) != nil)

        // Two keys with the same bytes share one image, kept while either is named.
        let a = try #require(cache.id("a", three)), b = try #require(cache.id("b", three))
        #expect(a == b)
        try host.update(root, list([b]))
        cache.sweep()
        #expect(app.image(b) != nil && app.image(next) == nil)

        // A screen the plugin did not manage to replace still shows its image: removed at a later sweep.
        let shown = try #require(cache.id("b", one))
        try host.update(root, list([shown]))
        cache.sweep()
        _ = cache.id("b", two)
        cache.sweep()
        #expect(app.image(shown) != nil, "still on the screen")
        try host.update(root, list([]))
        cache.sweep()
        #expect(app.imageUsage.count == 0)
    }
}
