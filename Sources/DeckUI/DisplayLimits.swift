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

    /// In key order: part of every `ui.get` and `ui.changed`.
    public var json: JSONValue {
        .object(JSONObject(inKeyOrder: [
            .init("alertActions", .int(Int64(alertActions))),
            .init("contentDepth", .int(Int64(contentDepth))),
            .init("contentItems", .int(Int64(contentItems))),
            .init("depth", .int(Int64(depth))),
            .init("gridButtons", .int(Int64(gridButtons))),
            .init("informationActions", .int(Int64(informationActions))),
            .init("informationItems", .int(Int64(informationItems))),
            .init("listItems", .int(Int64(listItems))),
            .init("mapButtons", .int(Int64(mapButtons))),
            .init("nowPlayingButtons", .int(Int64(nowPlayingButtons))),
            .init("otherActions", .int(Int64(otherActions))),
            .init("points", .int(Int64(points))),
            .init("quota", .int(Int64(quota))),
            .init("sections", .int(Int64(sections))),
            .init("stringCharacters", .int(Int64(stringCharacters))),
            .init("tabs", .int(Int64(tabs))),
            .init("visibleRows", .int(Int64(visibleRows))),
        ]))
    }
}
