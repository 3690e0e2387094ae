import DeckBase
import DeckControl
import DeckPlugins
import DeckUI

/// Content trees, pulled from plugins a level at a time as the HMI browses them.
extension InterfaceCoordinator {
    /// The top level as tabs and the level being browsed, read from the plugin when not read yet.
    func contentJSON(_ app: AppInterface, _ limits: DisplayLimits) -> JSONValue {
        let tree = app.content
        var object: [String: JSONValue] = ["path": .string(ContentTree.path(tree.browsePath)),
                                           "nowPlaying": .array(tree.nowPlayingIDs.map(JSONValue.string))]
        let tabs = level(app, [], limits)
        object["tabs"] = .array((tabs ?? []).enumerated().map { itemJSON($1, path: [$0], tree) })
        if tree.browsePath.isEmpty, tabs?.isEmpty == false { tree.browsePath = [0] }
        let items = level(app, tree.browsePath, limits)
        object["items"] = .array((items ?? []).enumerated().map { itemJSON($1, path: tree.browsePath + [$0], tree) })
        object["loading"] = .bool(items == nil)
        if let dropped = tree.dropped[ContentTree.path(tree.browsePath)], dropped > 0 { object["dropped"] = .int(Int64(dropped)) }
        return .object(object)
    }

    private func itemJSON(_ item: ContentItem, path: [Int], _ tree: ContentTree) -> JSONValue {
        var object: [String: JSONValue] = ["path": .string(ContentTree.path(path)), "id": .string(item.id), "title": .string(item.title),
                                           "playable": .bool(item.playable), "container": .bool(item.container)]
        if let subtitle = item.subtitle { object["subtitle"] = .string(subtitle) }
        if let artwork = item.artworkURI { object["artworkURI"] = .string(artwork) }
        if item.streaming { object["streaming"] = true }
        if tree.nowPlayingIDs.contains(item.id) { object["playing"] = true }
        return .object(object)
    }

    /// The children of `indexes`, or nil while the plugin loads them. The top level holds at
    /// most `tabs` items, every other level `contentItems`; the rest is counted as dropped.
    private func level(_ app: AppInterface, _ indexes: [Int], _ limits: DisplayLimits) -> [ContentItem]? {
        let path = ContentTree.path(indexes)
        if let items = app.content.levels[path] { return items }
        guard !app.content.loading.contains(path), let plugin = plugins.plugin(id: app.appID) else { return nil }
        let count = plugin.childCount(path: path)
        if count < 0 {
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
            case .success(let item): items.append(item)
            case .failure(let error): logger.warning("ui", "\(app.appID): content item \"\(child)\" skipped: \(error.message)")
            }
        }
        app.content.store(items, dropped: max(0, count - limit), at: path)
        return items
    }

    /// The driver picked a content item: a container is browsed into, a playable item played.
    public func selectContent(_ pathText: String) throws(RPCError) {
        let app = try foregroundApp()
        guard app.offersContent else { throw .commandFailed("\(app.appID) offers no content tree") }
        let parts = pathText.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard !parts.isEmpty, parts.allSatisfy({ ($0 ?? -1) >= 0 }) else {
            throw .invalidParams("\"path\" must be child indexes joined by /, such as 0/3 (ui.get lists them)")
        }
        let indexes = parts.map { $0! }
        let limits = limits(for: app)
        guard let siblings = level(app, Array(indexes.dropLast()), limits), indexes.last! < siblings.count else {
            throw .invalidParams("no content item at \(pathText) on \(app.appID)'s screen; ui.get lists the paths")
        }
        let item = siblings[indexes.last!]
        if item.container {
            guard indexes.count <= limits.contentDepth else {
                throw .limit("\(pathText) is \(indexes.count) levels deep; the content depth limit is \(limits.contentDepth) (contentDepth)")
            }
            app.content.browsePath = indexes
        }
        if item.playable {
            let token = takeToken(.play(app: app.appID, path: pathText))
            if plugins.plugin(id: app.appID)?.play(path: pathText, token: token) != true { _ = finish(token, app: app.appID) }
        }
        onChange?()
    }
}
