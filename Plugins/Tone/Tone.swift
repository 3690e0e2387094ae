import DeckSDK

/// Test signals an integrator uses to check speakers and the audio path.
final class Tone: DeckPlugin {
    static let descriptor = PluginDescriptor(
        id: "org.deck.tone", name: "Tone", version: "0.1.0", vendor: "Deck",
        description: "Test signals for checking speakers and the audio path")

    private let host: DeckHost

    init(host: DeckHost) throws {
        guard host.hasEntitlement("audio") else {
            throw DeckError(.notEntitled, "Tone needs the audio entitlement")
        }
        self.host = host
    }

    func activate() throws {
        try host.requestCallback()
    }

    func onCallback() {
        host.log(.info, "ready on \(host.name) \(host.version)" + (host.isLoopThread ? " (loop thread)" : ""))
    }

    func deactivate() {
        host.log(.debug, "deactivated")
    }
}

@_cdecl("deck_plugin_entry")
public func deckPluginEntry() -> UnsafeRawPointer { DeckPluginExport.entry(for: Tone.self) }
