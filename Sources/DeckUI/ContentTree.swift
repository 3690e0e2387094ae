/// One node of an app's content tree, copied from the plugin.
public struct ContentItem: Equatable, Sendable {
    public var id: String
    public var title: String
    public var subtitle: String?
    public var artworkURI: String?
    public var playable = false
    public var container = false
    public var streaming = false

    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }
}

/// What the runtime has read of an app's content tree (pulled lazily, a level at a time), where
/// the HMI is browsing, and what plays. A path is child indexes from the top ("" is the top,
/// "0/3" the fourth child of the first). Loop-thread-confined.
public final class ContentTree {
    /// Children read per path; a path missing was not read (or is loading).
    public private(set) var levels: [String: [ContentItem]] = [:]
    /// Children beyond the limit the plugin had, per path.
    public private(set) var dropped: [String: Int] = [:]
    /// Paths whose children the plugin is loading.
    public var loading: Set<String> = []
    /// The level the HMI shows below the tabs: indexes from the top.
    public var browsePath: [Int] = []
    public var nowPlayingIDs: [String] = []

    public init() {}

    public func store(_ items: [ContentItem], dropped count: Int, at path: String) {
        levels[path] = items
        dropped[path] = count
        loading.remove(path)
    }

    /// The plugin's content changed: everything is read again.
    public func reload() {
        levels = [:]
        dropped = [:]
        loading = []
        if browsePath.count > 1 { browsePath = Array(browsePath.prefix(1)) }
    }

    public static func path(_ indexes: [Int]) -> String { indexes.map(String.init).joined(separator: "/") }
}
