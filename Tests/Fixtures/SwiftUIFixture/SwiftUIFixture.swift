import DeckSDK

/// The C UI fixture (ui-plugin.c) written with DeckSDK: the same tab bar of two lists when the
/// display attaches, the same detail pushed when "fm4" is selected, so the tests can check that
/// both give the HMI the same screen.
final class SwiftUIFixture: DeckUIPlugin {
    static let descriptor = PluginDescriptor(id: "org.deck.test.swiftui", name: "Swift UI fixture", version: "1.0.0")
    let host: DeckHost

    init(host: DeckHost) throws { self.host = host }

    func displayChanged(attached: Bool) {
        guard attached else { return }
        let stations = DeckTemplate.list("Stations", key: "stations", sections: [
            DeckSection(header: "Favourites", items: [
                DeckItem(key: "fm4", "FM4", detail: "Alternative", accessory: .disclosure),
                DeckItem(key: "oe1", "Oe1", detail: "Culture"),
                DeckItem(key: "slow", "Slow station"),
            ]),
        ])
        let podcasts = DeckTemplate.list("Podcasts", key: "podcasts", items: [DeckItem(key: "p1", "Episode 1"), DeckItem(key: "p2", "Episode 2")])
        do {
            let (id, dropped) = try host.setRoot(.tabBar([stations, podcasts]))
            host.log(.info, "set_root: 0 id=\(id) dropped=\(dropped)")
        } catch {
            host.log(.error, "set_root: \(error)")
        }
    }

    func select(templateID: UInt64, key: String, token: UInt64) {
        host.log(.info, "select: \(key)")
        if key == "slow" { return }
        if key == "fm4" {
            _ = try? host.push(.list("FM4", items: [DeckItem(key: "play", "Play"), DeckItem("Now: Morning Show", detail: "until 10:00")]))
        }
        try? host.completeSelection(token)
    }
}

@_cdecl("deck_plugin_entry")
public func deckPluginEntry() -> UnsafeRawPointer { DeckPluginExport.entry(for: SwiftUIFixture.self) }
