import DeckBase
import DeckControl
import DeckPlugins
import DeckUI

/// Content trees, pulled from plugins a level at a time as the HMI browses them.
extension InterfaceCoordinator {
    /// The top level as tabs and the level being browsed, read from the plugin when not read yet.
    func contentJSON(_ app: AppInterface, _ limits: DisplayLimits) -> JSONValue {
        let tree = app.content
        // "path" is where the HMI stood when it asked, before an empty path moves to the first tab.
        let path = ContentTree.path(tree.browsePath)
        let tabs = level(app, [], limits)
        let tabsJSON = (tabs ?? []).map { itemJSON($0, path: [$0.index], tree) }
        if tree.browsePath.isEmpty, tabs?.isEmpty == false { tree.browsePath = [0] }
        let items = level(app, tree.browsePath, limits)
        let browsed = ContentTree.path(tree.browsePath)
        let failure = tree.failures[browsed]
        var members: [JSONObject.Member] = []
        if let dropped = tree.dropped[browsed], dropped > 0 { members.append(.init("dropped", .int(Int64(dropped)))) }
        if let failure { members.append(.init("error", .string(failure))) }
        members.append(.init("items", .array((items ?? []).map { itemJSON($0, path: tree.browsePath + [$0.index], tree) })))
        members.append(.init("loading", .bool(items == nil && failure == nil)))
        members.append(.init("nowPlaying", .array(tree.nowPlayingIDs.map(JSONValue.string))))
        members.append(.init("path", .string(path)))
        members.append(.init("tabs", .array(tabsJSON)))
        return .object(JSONObject(inKeyOrder: members))
    }

    /// In key order: a level shows many.
    private func itemJSON(_ item: ContentItem, path: [Int], _ tree: ContentTree) -> JSONValue {
        var members: [JSONObject.Member] = []
        if let artwork = item.artworkURI { members.append(.init("artworkURI", .string(artwork))) }
        members.append(.init("container", .bool(item.container)))
        members.append(.init("id", .string(item.id)))
        members.append(.init("path", .string(ContentTree.path(path))))
        members.append(.init("playable", .bool(item.playable)))
        if tree.nowPlayingIDs.contains(item.id) { members.append(.init("playing", true)) }
        if item.streaming { members.append(.init("streaming", true)) }
        if let subtitle = item.subtitle { members.append(.init("subtitle", .string(subtitle))) }
        members.append(.init("title", .string(item.title)))
        return .object(JSONObject(inKeyOrder: members))
    }

    /// The children of `indexes`, or nil while the plugin loads them or after their load failed
    /// (asked again when the HMI selects the container again). The top level holds at most `tabs`
    /// items, every other level `contentItems`; the rest is counted as dropped.
    /// `startLoading` false only peeks: a level that must be loaded is not asked for.
    private func level(_ app: AppInterface, _ indexes: [Int], _ limits: DisplayLimits, startLoading: Bool = true) -> [ContentItem]? {
        let path = ContentTree.path(indexes)
        if let items = app.content.levels[path] { return items }
        guard !app.content.loading.contains(path), app.content.failures[path] == nil,
              let plugin = plugins.plugin(id: app.appID) else { return nil }
        let count = plugin.childCount(path: path)
        if count < 0 {
            guard startLoading else { return nil }
            app.content.loading.insert(path)
            let token = takeToken(.load(app: app.appID, path: path))
            if !plugin.beginLoading(path: path, token: token) { _ = finish(token, app: app.appID) }
            return nil
        }
        let limit = indexes.isEmpty ? limits.tabs : limits.contentItems
        var items: [ContentItem] = []
        for index in 0..<min(count, limit) {
            let child = path.isEmpty ? String(index) : "\(path)/\(index)"
            switch plugin.contentItem(path: child) {
            case .success(var item):
                item.index = index
                items.append(item)
            case .failure(let error): logger.warning("ui", "\(app.appID): content item \"\(child)\" skipped: \(error.message)")
            }
        }
        app.content.store(items, dropped: max(0, count - limit), at: path)
        return items
    }

    /// The driver picked a content item: a container is browsed into, a playable item played.
    public func selectContent(_ pathText: String, zone: Int = 0) throws(RPCError) {
        let app = try foregroundApp(zone: zone)
        guard app.offersContent else { throw .commandFailed("\(app.appID) offers no content tree") }
        let parts = pathText.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard !parts.isEmpty, parts.allSatisfy({ ($0 ?? -1) >= 0 }) else {
            throw .invalidParams("\"path\" must be child indexes joined by /, such as 0/3 (ui.get lists them)")
        }
        let indexes = parts.map { $0! }
        let limits = limits(for: app)
        // Only what the HMI can be shown is selected: a level that must be loaded first is not asked for here.
        guard let item = level(app, Array(indexes.dropLast()), limits, startLoading: false)?.first(where: { $0.index == indexes.last! }) else {
            throw .invalidParams("no content item at \(pathText) on \(app.appID)'s screen; ui.get lists the paths")
        }
        if item.container {
            guard indexes.count <= limits.contentDepth else {
                throw .limit("\(pathText) is \(indexes.count) levels deep; the content depth limit is \(limits.contentDepth) (contentDepth)")
            }
            app.content.browsePath = indexes
            app.content.placeBeforeLimit = nil
            app.content.failures[ContentTree.path(indexes)] = nil  // the HMI asks again
        }
        if item.playable {
            let token = takeToken(.play(app: app.appID, path: pathText))
            if plugins.plugin(id: app.appID)?.play(path: pathText, token: token) != true { _ = finish(token, app: app.appID) }
        }
        onChange?()
    }
}
