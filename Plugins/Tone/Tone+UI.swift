import DeckSDK

/// Tone on the car's display: a list of its signals with a row that shows what plays (selecting
/// a signal plays it), and the same signals as a content tree with a tab per kind.
extension Tone: DeckUIPlugin, DeckContentPlugin {
    /// The kinds of signal, as the content tree's tabs.
    static let tabs: [(title: String, items: [String])] = [
        ("Tones", ["stereo-440-660", "sine-1000", "sine-440"]),
        ("Sweeps", ["sweep"]),
        ("Noise", ["pink-noise", "silence"]),
    ]

    func displayChanged(attached: Bool) {
        rootID = nil
        guard attached else { return }
        if iconID == nil { iconID = try? host.addImage(Tone.icon) }
        do { rootID = try host.setRoot(screen).id } catch { host.log(.warning, "no screen: \(error.message)") }
    }

    /// A 1×1 PNG in Deck's orange: the icon beside what plays.
    static let icon: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41,
        0x54, 0x78, 0x9C, 0x63, 0x50, 0x68, 0xF8, 0xFF, 0x1F, 0x00, 0x05, 0x02, 0x02, 0x9F, 0x76, 0xA8, 0x46, 0xC9, 0x00, 0x00,
        0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]

    func select(templateID: UInt64, key: String, token: UInt64) {
        do {
            try start(item: key)
        } catch let error as DeckError {
            host.log(.warning, "\(key) did not play: \(error.message)")
        } catch {
            host.log(.warning, "\(key) did not play: \(error)")
        }
        try? host.completeSelection(token)
    }

    /// The list: what plays on top, then every signal with the playing one marked.
    var screen: DeckTemplate {
        let playing = signal.map { "\($0.title)\(paused ? " (paused)" : "")" } ?? "Nothing"
        return .list("Tone", sections: [
            DeckSection(header: "Now playing", items: [DeckItem(playing, detail: item.map { "item \($0)" }, image: iconID)]),
            DeckSection(header: "Signals", items: Tone.signalRows.map(row)),
            DeckSection(header: "Third-octave sines", items: Tone.bandRows.map(row)),
        ])
    }

    /// The rows' keys and titles, worked out once: the screen is drawn again at every pause and play.
    private static let signalRows = Signal.playlist.map { (key: $0, title: Signal(item: $0)!.title) }
    private static let bandRows = bands.map { "sine-\($0)" }.filter { !Signal.playlist.contains($0) }.map { (key: $0, title: Signal(item: $0)!.title) }

    /// The ISO 266 third-octave centres from 25 Hz to 20 kHz: a speaker check band by band.
    static let bands = [25, 31, 40, 50, 63, 80, 100, 125, 160, 200, 250, 315, 400, 500, 630, 800, 1000, 1250, 1600, 2000,
                        2500, 3150, 4000, 5000, 6300, 8000, 10000, 12500, 16000, 20000]

    private func row(_ signal: (key: String, title: String)) -> DeckItem {
        DeckItem(key: signal.key, signal.title, playing: signal.key == item)
    }

    /// Shows what plays now: a refresh in place, free of the template quota.
    func refreshScreen() {
        guard let rootID else { return }
        _ = try? host.update(rootID, screen)
        try? host.setNowPlayingContent(item.map { [$0] } ?? [])
    }

    func childCount(at path: [Int]) -> Int? {
        switch path.count {
        case 0: Tone.tabs.count
        case 1 where Tone.tabs.indices.contains(path[0]): Tone.tabs[path[0]].items.count
        default: 0
        }
    }

    func item(at path: [Int]) -> DeckContentItem? {
        guard let tab = path.first, Tone.tabs.indices.contains(tab) else { return nil }
        guard path.count == 2 else { return DeckContentItem(id: "tab-\(tab)", title: Tone.tabs[tab].title, container: true) }
        let items = Tone.tabs[tab].items
        guard items.indices.contains(path[1]), let signal = Signal(item: items[path[1]]) else { return nil }
        return DeckContentItem(id: items[path[1]], title: signal.title, playable: true, streaming: signal.duration == nil)
    }

    func play(at path: [Int], token: UInt64) {
        guard let item = self.item(at: path), item.playable else {
            try? host.completeContent(token, .invalid)
            return
        }
        do {
            try start(item: item.id)
            try host.completeContent(token)
        } catch {
            try? host.completeContent(token, .state)
        }
    }
}
