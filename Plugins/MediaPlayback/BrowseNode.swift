import FoundationEssentials

/// One node of an app's browse tree: a container (a tab, an artist, an album, a genre, a folder,
/// or a section of a long level) or an entry (an index into the app's own list: a track, a station).
public final class BrowseNode: @unchecked Sendable {  // Built whole on one thread, then only read, on the loop thread.
    public let id: String
    public let title: String
    public let subtitle: String?
    public let children: [BrowseNode]
    public let entry: Int?
    /// A section made because a level was longer than the display shows (not a real container).
    public let isSection: Bool
    public private(set) weak var parent: BrowseNode?

    public init(id: String, title: String, subtitle: String? = nil, children: [BrowseNode] = [], entry: Int? = nil, isSection: Bool = false) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.children = children
        self.entry = entry
        self.isSection = isSection
        for child in children { child.parent = self }
    }

    /// The entries below, in order (through sections and sub-containers).
    public var entryIndexes: [Int] { entry.map { [$0] } ?? children.flatMap(\.entryIndexes) }

    /// The container whose entries become the queue when one of its entries plays.
    public var queueOwner: BrowseNode? {
        var owner = parent
        while let node = owner, node.isSection { owner = node.parent }
        return owner
    }

    /// The node at `path` (child indexes, the first one into `tabs`); nil for a path that leads nowhere.
    public static func node(at path: [Int], in tabs: [BrowseNode]) -> BrowseNode? {
        guard let first = path.first, tabs.indices.contains(first) else { return nil }
        var node = tabs[first]
        for index in path.dropFirst() {
            guard node.children.indices.contains(index) else { return nil }
            node = node.children[index]
        }
        return node
    }

    /// The rows a level of the tree may show, from the limits JSON `limitsChanged` hands over
    /// (`contentItems`, 2 to 10,000); nil when it says nothing usable.
    public static func rowLimit(fromLimits json: String) -> Int? {
        struct Limits: Decodable { var contentItems: Int }
        guard let decoded = try? JSONDecoder().decode(Limits.self, from: Data(json.utf8)), (2...10_000).contains(decoded.contentItems) else {
            return nil
        }
        return decoded.contentItems
    }

    /// `nodes` as they are when they fit in `limit`, else in sections of `limit` (nested as
    /// needed, titled by their first and last names), so a head unit that shows `limit` rows
    /// reaches every one. A last section of one would be a tap for nothing: that node stands itself.
    public static func sectioned(_ nodes: [BrowseNode], limit: Int) -> [BrowseNode] {
        let limit = max(2, limit)
        guard nodes.count > limit else { return nodes }
        let chunk = max(limit, (nodes.count + limit - 1) / limit)
        let sections = stride(from: 0, to: nodes.count, by: chunk).map { start -> BrowseNode in
            let members = Array(nodes[start..<min(start + chunk, nodes.count)])
            if members.count == 1 { return members[0] }
            let title = "\(members.first!.title.prefix(16)) – \(members.last!.title.prefix(16))"
            return BrowseNode(id: "section:\(members.first!.id)", title: title, subtitle: "\(members.count) items",
                              children: sectioned(members, limit: limit), isSection: true)
        }
        return sectioned(sections, limit: limit)
    }
}
