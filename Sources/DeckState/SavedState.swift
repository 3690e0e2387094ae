import DeckBase
import DeckNowPlaying

/// Deck's state between runs, as typed values: the volume groups, the sinks chosen for app audio
/// (by name) and the last source. Read from the state file's document, every value checked against
/// its range (the first that does not fit throws, naming it); written back as that document.
public struct SavedState {
    public static let version: Int64 = 1
    /// Longest item key kept, in bytes: what `apps.launch` takes.
    public static let maxItemBytes = 4_096

    public var volumes: [(name: String, index: Int?, muted: Bool?)] = []
    public var sinks: [String]?
    public var lastSource: LastSource?

    public init(volumes: [(name: String, index: Int?, muted: Bool?)], sinks: [String]?, lastSource: LastSource?) {
        self.volumes = volumes
        self.sinks = sinks
        self.lastSource = lastSource
    }

    /// The state of each audio zone but the primary one, by zone id; the primary zone's is the
    /// rest of the document.
    public var zones: [String: SavedState] = [:]

    /// The document the state file holds.
    public var document: JSONValue {
        var document = fields
        document["version"] = .int(SavedState.version)
        if !zones.isEmpty { document["zones"] = .object(JSONObject(zones.mapValues { .object($0.fields) })) }
        return .object(document)
    }

    /// One zone's members of the document.
    private var fields: JSONObject {
        var document: JSONObject = [:]
        if let lastSource { document["lastSource"] = SavedState.json(lastSource) }
        document["volumes"] = .object(JSONObject(Dictionary(uniqueKeysWithValues: volumes.map { volume in
            (volume.name, ["index": volume.index.map { .int(Int64($0)) } ?? .null, "muted": volume.muted.map(JSONValue.bool) ?? .null] as JSONValue)
        })))
        if let sinks { document["sinks"] = ["selected": .array(sinks.map(JSONValue.string))] }
        return document
    }

    public init(_ document: JSONValue, maxQueueItems: Int) throws(StateFileError) {
        guard case .object(let members) = document else { throw .invalid("the document is not an object") }
        guard members["version"]?.integer(in: SavedState.version...SavedState.version) != nil else {
            throw .invalid("version is \(members["version"]?.encoded() ?? "missing"), not \(SavedState.version)")
        }
        try self.init(fields: members, prefix: "", maxQueueItems: maxQueueItems)
        if let value = members["zones"] {
            guard case .object(let saved) = value else { throw .invalid("zones is not an object") }
            for (id, zone) in saved.sorted(by: { $0.key < $1.key }) {
                guard case .object(let fields) = zone else { throw .invalid("zones.\(id) is not an object") }
                zones[id] = try SavedState(fields: fields, prefix: "zones.\(id).", maxQueueItems: maxQueueItems)
            }
        }
    }

    /// One zone's members; `prefix` names where they are in messages.
    private init(fields members: JSONObject, prefix: String, maxQueueItems: Int) throws(StateFileError) {
        if let value = members["volumes"] {
            guard case .object(let groups) = value else { throw .invalid("\(prefix)volumes is not an object") }
            for (name, saved) in groups.sorted(by: { $0.key < $1.key }) {
                guard case .object = saved else { throw .invalid("\(prefix)volumes.\(name) is not an object") }
                let index = try SavedState.optional(saved["index"], "\(prefix)volumes.\(name).index") { $0.integer(in: 0...100) }
                let muted = try SavedState.optional(saved["muted"], "\(prefix)volumes.\(name).muted") { $0.boolValue }
                volumes.append((name, index, muted))
            }
        }
        if let value = members["sinks"] {
            guard let names = value["selected"]?.arrayValue?.compactMap(\.stringValue),
                  names.count == value["selected"]?.arrayValue?.count else { throw .invalid("\(prefix)sinks.selected is not a list of names") }
            sinks = names
        }
        if let value = members["lastSource"] { lastSource = try SavedState.lastSource(value, prefix: prefix, maxQueueItems: maxQueueItems) }
    }

    private static func lastSource(_ json: JSONValue, prefix: String, maxQueueItems: Int) throws(StateFileError) -> LastSource {
        guard let plugin = json["plugin"]?.stringValue, (1...255).contains(plugin.utf8.count) else {
            throw .invalid("\(prefix)lastSource.plugin is not an app id")
        }
        let item = try optional(json["item"], "\(prefix)lastSource.item") { $0.stringValue.flatMap { $0.utf8.count <= maxItemBytes ? $0 : nil } }
        var source = LastSource(pluginID: plugin, itemKey: item)
        source.position = try optional(json["position"], "\(prefix)lastSource.position") { $0.mediaTime()?.seconds } ?? 0
        let list = try optional(json["queue"], "\(prefix)lastSource.queue") { $0.arrayValue } ?? []
        var items: [QueueItem] = []
        for (index, entry) in list.enumerated() {
            guard let key = entry["key"]?.stringValue else { throw .invalid("\(prefix)lastSource.queue[\(index)].key is not text") }
            items.append(QueueItem(key: key, title: try optional(entry["title"], "\(prefix)lastSource.queue[\(index)].title") { $0.stringValue },
                                   artist: try optional(entry["artist"], "\(prefix)lastSource.queue[\(index)].artist") { $0.stringValue },
                                   duration: try optional(entry["duration"], "\(prefix)lastSource.queue[\(index)].duration") { $0.mediaTime()?.seconds }))
        }
        let current = try optional(json["currentIndex"], "\(prefix)lastSource.currentIndex") { $0.integer(in: 0...Int.max) }
        var ids: UInt64 = 0
        do throws(NowPlayingError) {
            try source.queue.replace(with: items, current: current, maxItems: maxQueueItems, nextID: &ids)
        } catch {
            throw .invalid("\(prefix)lastSource.queue: \(error)")
        }
        source.queue.shuffle = try optional(json["shuffle"], "\(prefix)lastSource.shuffle") { $0.stringValue.flatMap(ShuffleMode.init) } ?? .off
        source.queue.repeatMode = try optional(json["repeat"], "\(prefix)lastSource.repeat") { $0.stringValue.flatMap(RepeatMode.init) } ?? .off
        return source
    }

    private static func json(_ source: LastSource) -> JSONValue {
        [
            "plugin": .string(source.pluginID),
            "item": source.itemKey.map(JSONValue.string) ?? .null,
            "position": .double(source.position),
            "queue": .array(source.queue.items.map { item in
                ["key": .string(item.key), "title": item.title.map(JSONValue.string) ?? .null,
                 "artist": item.artist.map(JSONValue.string) ?? .null, "duration": item.duration.map(JSONValue.double) ?? .null]
            }),
            "currentIndex": source.queue.currentIndex.map { .int(Int64($0)) } ?? .null,
            "shuffle": .string(source.queue.shuffle.rawValue),
            "repeat": .string(source.queue.repeatMode.rawValue),
        ]
    }

    /// A member that may be missing or null; present, it must read as `read` says or the file is refused.
    private static func optional<T>(_ value: JSONValue?, _ path: String, _ read: (JSONValue) -> T?) throws(StateFileError) -> T? {
        guard let value, value != .null else { return nil }
        guard let typed = read(value) else { throw .invalid("\(path) is \(PrintableText.excerpt(value.encoded())), out of range or of the wrong type") }
        return typed
    }
}
