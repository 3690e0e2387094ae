import DeckBase
import DeckNowPlaying
import DeckSession

/// What survives a restart (`state.path`): the last source, the volume groups and the sinks
/// chosen for app audio (by name). Saved
/// debounced after each change and on shutdown; restored at start.
extension Runtime {
    static let stateVersion = 1

    /// The document the state file holds.
    var stateDocument: JSONValue {
        var document: [String: JSONValue] = ["version": .int(Int64(Runtime.stateVersion))]
        if let source = player.center.lastSource(now: loop.now) ?? player.lastSource { document["lastSource"] = Runtime.json(source) }
        document["volumes"] = .object(Dictionary(uniqueKeysWithValues: session.volume.groups.map {
            ($0.name, ["index": .int(Int64($0.index)), "muted": .bool($0.muted)] as JSONValue)
        }))
        if let selection = output.selection { document["sinks"] = ["selected": .array(selection.map(JSONValue.string))] }
        return .object(document)
    }

    /// Schedules a save of the state, when there is a state file.
    func saveState() { stateFile?.save(stateDocument) }

    /// Takes what the state file holds; a part that does not fit this runtime is logged and skipped.
    func restoreState(_ document: JSONValue) {
        guard document["version"]?.intValue == Int64(Runtime.stateVersion) else {
            return logger.warning("state", "the state file has version \(document["version"]?.encoded() ?? "none"), "
                                  + "not \(Runtime.stateVersion); starting without it")
        }
        if case .object(let volumes)? = document["volumes"] {
            do {
                try focus.changeVolume { groups throws(VolumeError) in
                    for (name, saved) in volumes.sorted(by: { $0.key < $1.key }) where groups.group(named: name) != nil {
                        if let index = saved["index"]?.intValue { try groups.set(name, index: Int(index)) }
                        if let muted = saved["muted"]?.boolValue, groups.group(named: name)?.canSilence == true { try groups.mute(name, muted) }
                    }
                }
            } catch {
                logger.warning("state", "saved volumes not restored: \(error)")
            }
        }
        if let names = document["sinks"]?["selected"]?.arrayValue?.compactMap(\.stringValue) {
            savedSinkSelection = names
        }
        if let saved = document["lastSource"] {
            if let source = Runtime.lastSource(saved) {
                player.lastSource = source
                logger.info("state", "last source: \(source.pluginID) \(source.itemKey ?? "(default item)") at \(Int(source.position)) s")
            } else {
                logger.warning("state", "the saved last source is malformed; skipped")
            }
        }
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

    private static func lastSource(_ json: JSONValue) -> LastSource? {
        guard let plugin = json["plugin"]?.stringValue, !plugin.isEmpty else { return nil }
        var source = LastSource(pluginID: plugin, itemKey: json["item"]?.stringValue)
        switch json["position"] {
        case .double(let value)? where value.isFinite && value >= 0: source.position = value
        case .int(let value)? where value >= 0: source.position = Double(value)
        default: break
        }
        let items = (json["queue"]?.arrayValue ?? []).compactMap { item -> QueueItem? in
            guard let key = item["key"]?.stringValue else { return nil }
            var duration: Double?
            if case .double(let value)? = item["duration"] { duration = value }
            return QueueItem(key: key, title: item["title"]?.stringValue, artist: item["artist"]?.stringValue, duration: duration)
        }
        var ids: UInt64 = 0
        let current = json["currentIndex"]?.intValue.map { Int($0) }
        try? source.queue.replace(with: items, current: current, maxItems: 100_000, nextID: &ids)
        source.queue.shuffle = json["shuffle"]?.stringValue.flatMap(ShuffleMode.init) ?? .off
        source.queue.repeatMode = json["repeat"]?.stringValue.flatMap(RepeatMode.init) ?? .off
        return source
    }
}
