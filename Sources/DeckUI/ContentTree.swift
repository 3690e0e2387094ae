/// One node of an app's content tree, copied from the plugin.
public struct ContentItem: Equatable, Sendable {
    public var id: String
    public var title: String
    public var subtitle: String?
    public var artworkURI: String?
    public var playable = false
    public var container = false
    public var streaming = false
    /// Its place among its siblings as the plugin numbers them: the last index of its path, kept
    /// when a sibling before it could not be read, so what the HMI sees is what it selects.
    public var index = 0

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
    /// Paths whose load failed or timed out, with the reason the HMI is shown; asked again only
    /// when the HMI selects the container again.
    public var failures: [String: String] = [:]
    /// Where the driver was before a smaller depth limit (driving) cut the place short; brought
    /// back when the limit allows it again.
    public var placeBeforeLimit: [Int]?
    /// The level the HMI shows below the tabs: indexes from the top.
    public var browsePath: [Int] = []
    public var nowPlayingIDs: [String] = []

    public init() {}

    public func store(_ items: [ContentItem], dropped count: Int, at path: String) {
        levels[path] = items
        dropped[path] = count
        loading.remove(path)
        failures[path] = nil
    }

    /// The plugin's content changed: everything is read again, from the tab the driver is on.
    public func reload() {
        forgetLevels()
        placeBeforeLimit = nil
        if browsePath.count > 1 { browsePath = Array(browsePath.prefix(1)) }
    }

    /// The limits changed: every level is read again under them, keeping the driver's place when it
    /// is within `depth` and remembering it when it is not, to be brought back when it fits again.
    public func applyDepth(_ depth: Int) {
        forgetLevels()
        let place = placeBeforeLimit ?? browsePath
        if place.count > depth {
            placeBeforeLimit = place
            browsePath = Array(place.prefix(depth))
        } else {
            placeBeforeLimit = nil
            browsePath = place
        }
    }

    private func forgetLevels() {
        levels = [:]
        dropped = [:]
        loading = []
        failures = [:]
    }

    public static func path(_ indexes: [Int]) -> String { indexes.map(String.init).joined(separator: "/") }
}
