/// A plugin that shows templates (`deck.ui`). Loop thread.
public protocol DeckUIPlugin: DeckPlugin {
    /// The display attached (set the root with `host.setRoot` before returning) or went away
    /// (template ids are invalid from now on; audio plays on).
    func displayChanged(attached: Bool)

    /// The driver chose the item, button, action or tab with `key` in template `templateID`; call
    /// `host.completeSelection(token)` when done (within 10 s by default).
    func select(templateID: UInt64, key: String, token: UInt64)

    /// Driving started or ended: what shows was held to the new limits (JSON, as display limits).
    func limitsChanged(_ limits: String)
}

extension DeckUIPlugin {
    public func limitsChanged(_ limits: String) {}
}

/// One node of a content tree.
public struct DeckContentItem: Sendable, Equatable {
    public var id: String
    public var title: String
    public var subtitle: String?
    public var artworkURI: String?
    public var playable: Bool
    public var container: Bool
    public var streaming: Bool

    public init(id: String, title: String, subtitle: String? = nil, artworkURI: String? = nil, playable: Bool = false,
                container: Bool = false, streaming: Bool = false) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.artworkURI = artworkURI
        self.playable = playable
        self.container = container
        self.streaming = streaming
    }
}

/// A plugin whose content the car's media UI browses (`deck.content`): a tree the host pulls a
/// level at a time. A path is child indexes from the top ([] is the top, whose items are tabs).
/// Loop thread.
public protocol DeckContentPlugin: DeckPlugin {
    /// Children at `path` now; nil when they must be loaded first (`beginLoading` follows).
    func childCount(at path: [Int]) -> Int?
    func item(at path: [Int]) -> DeckContentItem?
    /// Load the children of `path`, then `host.completeContent(token)`.
    func beginLoading(at path: [Int], token: UInt64)
    /// Play the item at `path`, then `host.completeContent(token)` (or with why it cannot).
    func play(at path: [Int], token: UInt64)
}

extension DeckContentPlugin {
    public func beginLoading(at path: [Int], token: UInt64) {}
}
