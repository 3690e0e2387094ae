/// A template as a Swift value: what `DeckHost.setRoot`, `push`, `present` and `update` send
/// (as the JSON deck/ext/ui.h describes). The runtime checks it against the display's limits.
public struct DeckTemplate: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case tabBar, list, grid, information, alert, actionSheet, nowPlaying, pointOfInterest, map, search, contact, voiceControl
    }

    public var kind: Kind
    public var title: String?
    /// The tab's key, handed back when the driver picks the tab.
    public var key: String?
    public var sections: [DeckSection] = []
    /// Grid buttons, actions, now-playing buttons, map buttons.
    public var buttons: [DeckItem] = []
    public var tabs: [DeckTemplate] = []
    /// Kind-specific text: an alert's message, a search placeholder.
    public var message: String?

    public init(_ kind: Kind, title: String? = nil, key: String? = nil) {
        self.kind = kind
        self.title = title
        self.key = key
    }

    public static func list(_ title: String?, key: String? = nil, sections: [DeckSection]) -> DeckTemplate {
        var template = DeckTemplate(.list, title: title, key: key)
        template.sections = sections
        return template
    }

    public static func list(_ title: String?, key: String? = nil, items: [DeckItem]) -> DeckTemplate {
        list(title, key: key, sections: [DeckSection(items: items)])
    }

    public static func tabBar(_ tabs: [DeckTemplate]) -> DeckTemplate {
        var template = DeckTemplate(.tabBar)
        template.tabs = tabs
        return template
    }

    public static func grid(_ title: String?, buttons: [DeckItem]) -> DeckTemplate {
        var template = DeckTemplate(.grid, title: title)
        template.buttons = buttons
        return template
    }

    public static func alert(_ title: String, message: String? = nil, actions: [DeckItem]) -> DeckTemplate {
        var template = DeckTemplate(.alert, title: title)
        template.message = message
        template.buttons = actions
        return template
    }
}

public struct DeckSection: Sendable, Equatable {
    public var header: String?
    public var items: [DeckItem]

    public init(header: String? = nil, items: [DeckItem]) {
        self.header = header
        self.items = items
    }
}

/// A row, button or action. With a key it can be selected; the key comes back in `select`.
public struct DeckItem: Sendable, Equatable {
    public enum Accessory: String, Sendable { case none, disclosure, cloud }

    public var key: String?
    public var text: String
    public var detail: String?
    /// An id from `DeckHost.addImage`.
    public var image: UInt64?
    public var accessory: Accessory?
    public var playing = false

    public init(key: String? = nil, _ text: String, detail: String? = nil, image: UInt64? = nil, accessory: Accessory? = nil,
                playing: Bool = false) {
        self.key = key
        self.text = text
        self.detail = detail
        self.image = image
        self.accessory = accessory
        self.playing = playing
    }
}
