import DeckBase

/// One template as a plugin described it, checked, with the runtime's ids. Every kind has the
/// same shape: a title, kind-specific fields, rows in sections (list rows, information items,
/// points of interest, search results, trips, voice states), buttons (actions, grid and map
/// buttons, now-playing buttons) and, for a tab bar, its tabs. The full content is kept; the
/// limits in force decide what is visible (`visible(under:)`).
public struct Template: Equatable, Sendable {
    public var id: UInt64 = 0
    public var kind: TemplateKind
    /// The plugin's key for a tab (handed back when the driver picks it).
    public var key: String?
    public var title: String?
    /// Kind-specific values (a message, a placeholder, estimates), checked by `TemplateSpec`.
    public var fields: JSONObject = [:]
    public var sections: [TemplateSection] = []
    public var buttons: [TemplateItem] = []
    public var tabs: [Template] = []

    public init(kind: TemplateKind) { self.kind = kind }

    /// How many now-playing templates it is or holds as tabs (there is one, shared).
    var nowPlayingCount: Int { (kind == .nowPlaying ? 1 : 0) + tabs.reduce(0) { $0 + $1.nowPlayingCount } }

    /// Whether `other` shows the same main content, as a refresh does: the type, the title and the
    /// keys, compared in place.
    public func hasSameMainContent(as other: Template) -> Bool {
        kind == other.kind && title == other.title && hasSameKeys(as: other)
    }

    /// The same keys in order: the rows', the buttons', the tabs' and their items'.
    private func hasSameKeys(as other: Template) -> Bool {
        sections.lazy.flatMap { $0.items }.map { $0.key }.elementsEqual(other.sections.lazy.flatMap { $0.items }.map { $0.key })
            && buttons.lazy.map { $0.key }.elementsEqual(other.buttons.lazy.map { $0.key })
            && tabs.count == other.tabs.count
            && zip(tabs, other.tabs).allSatisfy { $0.key == $1.key && $0.hasSameKeys(as: $1) }
    }
}

public struct TemplateSection: Equatable, Sendable {
    public var header: String?
    public var items: [TemplateItem] = []
}

/// A row, a button or an action. Without a key it cannot be selected (message rows never can).
public struct TemplateItem: Equatable, Sendable {
    public var id: UInt64 = 0
    public var key: String?
    public var text: String
    /// detail, image, imageURI, accessory, playing, style, latitude… as `TemplateSpec` allows.
    public var fields: JSONObject = [:]

    public var isSelectable: Bool { key != nil && fields["kind"] != "message" }
}

/// Where each kind keeps its rows and buttons in JSON, what else it takes, and its limits.
struct TemplateSpec {
    /// The key of the rows ("sections" for lists, which also take "items").
    var rows: String?
    var buttons: String?
    var fields: Set<String> = []
    /// The rows visible under the limits; nil for no rows.
    var rowLimit: ((DisplayLimits) -> (items: Int, limit: String))?
    /// The most buttons; more is refused.
    var buttonLimit: ((DisplayLimits) -> (count: Int, limit: String))?

    static func of(_ kind: TemplateKind) -> TemplateSpec {
        let list: (DisplayLimits) -> (Int, String) = { ($0.listItems, "listItems") }
        switch kind {
        case .tabBar: return TemplateSpec()
        case .list: return TemplateSpec(rows: "sections", rowLimit: list)
        case .grid: return TemplateSpec(buttons: "buttons", buttonLimit: { ($0.gridButtons, "gridButtons") })
        case .information:
            return TemplateSpec(rows: "items", buttons: "actions", fields: ["layout"], rowLimit: { ($0.informationItems, "informationItems") },
                                buttonLimit: { ($0.informationActions, "informationActions") })
        case .alert: return TemplateSpec(buttons: "actions", fields: ["message"], buttonLimit: { ($0.alertActions, "alertActions") })
        case .actionSheet: return TemplateSpec(buttons: "actions", fields: ["message"], buttonLimit: { ($0.otherActions, "otherActions") })
        case .nowPlaying:
            return TemplateSpec(buttons: "buttons", fields: ["upNext", "albumArtistButton"], buttonLimit: { ($0.nowPlayingButtons, "nowPlayingButtons") })
        case .pointOfInterest: return TemplateSpec(rows: "points", rowLimit: { ($0.points, "points") })
        case .map:
            return TemplateSpec(rows: "trips", buttons: "buttons", fields: ["maneuvers", "estimates", "guidance"],
                                rowLimit: { ($0.points, "points") }, buttonLimit: { ($0.mapButtons, "mapButtons") })
        case .search: return TemplateSpec(rows: "results", fields: ["placeholder", "query"], rowLimit: list)
        case .contact: return TemplateSpec(buttons: "actions", fields: ["subtitle", "image", "imageURI"], buttonLimit: { ($0.otherActions, "otherActions") })
        case .voiceControl: return TemplateSpec(rows: "states", rowLimit: list)
        }
    }

    /// What an item may carry, looked up by name: one hash per member, where a switch over
    /// strings compared case after case.
    enum ItemMember: String, CaseIterable {
        case text, title, key, detail, image, imageURI, images, accessory, playing, kind, style, type, latitude, longitude, selected, enabled

        static let named = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
        /// The members besides key and text, for error messages.
        static let fieldNames = allCases.filter { ![.text, .title, .key].contains($0) }.map(\.rawValue).sorted().joined(separator: ", ")
    }
}
