import CDeckPlugin
import Foundation
import Testing

/// What pkg-config tells a plugin author is the ABI the headers beside it declare, so
/// `pkg-config --atleast-version=1.6 deck-plugin` tells whether `remove_image` is there.
@Suite struct PkgConfigVersionTests {
    @Test func deckPluginPCCarriesTheHeadersABIVersion() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("sdk/deck-plugin.pc"), encoding: .utf8)
        #expect(text.split(separator: "\n").contains("Version: \(DECK_ABI_VERSION_MAJOR).\(DECK_ABI_VERSION_MINOR).\(DECK_ABI_VERSION_PATCH)"))
    }
}
