import DeckBase

/// What one app may show at the current display profile: DESIGN.md's display limits, smaller
/// lists while driving, fewer tabs for audio apps, a shallower stack for quick ordering.
public struct DisplayLimits: Equatable, Sendable {
    public var listItems: Int
    public var sections: Int
    public var gridButtons = 8
    public var informationItems = 10
    public var informationActions = 3
    public var alertActions = 2
    /// Action sheets and contact cards.
    public var otherActions = 4
    public var mapButtons = 4
    public var points = 12
    public var nowPlayingButtons = 5
    public var tabs: Int
    public var depth: Int
    public var stringCharacters = 120
    /// Templates per task (Android for Cars' rule); refreshes are free, pops give it back.
    public var quota = 5
    /// Content tree: items per level and levels below the top.
    public var contentItems: Int
    public var contentDepth: Int
    /// Rows a screen of this size shows at once (44-point rows under a 64-point bar).
    public var visibleRows: Int

    public init(profile: DisplayProfile, entitlements: Set<Entitlement>) {
        let limited = profile.limitedUserInterfaces.contains(.lists)
        listItems = limited ? 12 : 100
        sections = limited ? 3 : 10
        let audioOnly = entitlements.contains(.audio) && entitlements.isDisjoint(with: [.communication, .maps])
        tabs = audioOnly ? 4 : 5
        depth = entitlements.contains(.quickOrdering) ? 2 : 5
        contentItems = listItems
        contentDepth = limited ? 3 : 5
        visibleRows = max(3, Int((Double(profile.height) / profile.scale - 64) / 44))
    }

    public var json: JSONValue {
        ["listItems": .int(Int64(listItems)), "sections": .int(Int64(sections)), "gridButtons": .int(Int64(gridButtons)),
         "informationItems": .int(Int64(informationItems)), "informationActions": .int(Int64(informationActions)),
         "alertActions": .int(Int64(alertActions)), "otherActions": .int(Int64(otherActions)), "mapButtons": .int(Int64(mapButtons)),
         "points": .int(Int64(points)), "nowPlayingButtons": .int(Int64(nowPlayingButtons)), "tabs": .int(Int64(tabs)),
         "depth": .int(Int64(depth)), "stringCharacters": .int(Int64(stringCharacters)), "quota": .int(Int64(quota)),
         "contentItems": .int(Int64(contentItems)), "contentDepth": .int(Int64(contentDepth)), "visibleRows": .int(Int64(visibleRows))]
    }
}
