import DeckUI

/// A plugin's `deck.ui` or `deck.content` host call, read from its C arguments. Template text
/// stays text here; the runtime's `AppInterface` parses and checks it.
package enum UICall: Sendable {
    case setRoot(String)
    case push(String)
    case pop
    case popToRoot
    case present(String)
    case dismiss
    case update(templateID: UInt64, String)
    case complete(token: UInt64)
    case addImage([UInt8])
    case removeImage(UInt64)
    case reloadContent
    case nowPlayingContent([String])
    case completeContent(token: UInt64, DeckStatus)
}

/// What a `deck.ui` call hands back: a template or image id, and how many entries the limits hid.
package struct UIAnswer: Sendable, Equatable {
    package var id: UInt64 = 0
    package var dropped = 0

    package init(id: UInt64 = 0, dropped: Int = 0) {
        self.id = id
        self.dropped = dropped
    }
}
