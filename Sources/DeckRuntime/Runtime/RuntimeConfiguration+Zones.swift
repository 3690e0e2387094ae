import DeckBase
import DeckSession
import DeckUI

extension RuntimeConfiguration {
    /// `"zones": [{"id": "front", "name": "Front seats", "sinks": ["Cabin"], "sharedContexts": ["safety"]},
    /// {"id": "rear", "sinks": ["Rear"], "volumeGroups": {...}}]`: the first zone is the primary one
    /// (the driver's); sinks no zone names play in it.
    mutating func applyZones(_ value: JSONValue, path: String) throws(ConfigurationError) {
        guard let list = value.arrayValue, !list.isEmpty else { throw .invalid(path, "\"zones\" must be a non-empty array of zone objects") }
        var zones: [ZoneSettings] = []
        for (index, entry) in list.enumerated() {
            let zone = try ZoneSettings(entry, key: "zones[\(index)]", path: path)
            guard index == 0 || zone.display?.limitedUserInterfaces.isEmpty ?? true else {
                throw .invalid(path, "zones[\(index)].display: only the primary zone's display is limited by driving (limitedUserInterfaces)")
            }
            zones.append(zone)
        }
        var seen: [String: String] = [:]
        for zone in zones {
            guard zones.count(where: { $0.id == zone.id }) == 1 else { throw .invalid(path, "zones: the id \"\(zone.id)\" is used twice") }
            for sink in zone.sinks {
                if let other = seen[sink] { throw .invalid(path, "zones: the sink \"\(sink)\" is in \(other) and \(zone.id); a sink is in one zone") }
                seen[sink] = zone.id
            }
        }
        self.zones = zones
    }

    /// Each zone's display at start, in zone order.
    var zoneDisplays: [DisplayProfile] {
        effectiveZones.enumerated().map { index, zone in
            var profile = zone.display ?? display
            if index > 0 { profile.limitedUserInterfaces = [] }
            return profile
        }
    }

    /// Checks once the whole config is read (the keys come in any order).
    func checkZones(path: String) throws(ConfigurationError) {
        guard zones.count <= maxZones else {
            throw .invalid(path, "\(zones.count) zones are configured and maxZones is \(maxZones); remove zones or raise maxZones "
                           + "(at most \(ZoneSettings.maxZones))")
        }
    }
}

extension ZoneSettings {
    /// A zone object of the config, each key checked.
    init(_ json: JSONValue, key: String, path: String) throws(ConfigurationError) {
        guard case .object(let members) = json else { throw .invalid(path, "\(key) must be an object with an \"id\"") }
        guard let id = members["id"]?.stringValue, (1...32).contains(id.utf8.count), id.utf8.first.map({ (97...122).contains($0) }) == true,
              id.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                  || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) else {
            throw .invalid(path, "\(key).id must be 1 to 32 of a-z, 0-9, - and _, starting with a letter (it names the zone in "
                           + "requests and on D-Bus)")
        }
        self.init(id: id)
        for (name, value) in members {
            switch name {
            case "id": break
            case "name":
                guard let text = value.stringValue, (1...64).contains(text.utf8.count) else { throw .invalid(path, "\(key).name must be 1 to 64 bytes") }
                self.name = text
            case "sinks":
                guard let list = value.arrayValue, let names = Optional(list.compactMap(\.stringValue)), names.count == list.count,
                      names.allSatisfy({ !$0.isEmpty }) else {
                    throw .invalid(path, "\(key).sinks must be an array of sink names (the name= of sink URIs)")
                }
                sinks = names
            case "sharedContexts":
                guard let list = value.arrayValue else { throw .invalid(path, "\(key).sharedContexts must be an array of contexts") }
                for item in list {
                    guard let text = item.stringValue, let context = AudioContext(rawValue: text) else {
                        throw .invalid(path, "\(key).sharedContexts: unknown context \(PrintableText.excerpt(item.encoded())) "
                                       + "(known: \(AudioContext.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    sharedContexts.insert(context)
                }
            case "volumeGroups":
                do { volumeGroups = try VolumeGroups(json: value) } catch { throw .invalid(path, "\(key).volumeGroups: \(error)") }
            case "display":
                var profile = DisplayProfile()
                do { try profile.apply(value, in: "\(key).display") } catch { throw .invalid(path, error.description) }
                display = profile
            default:
                throw .invalid(path, "\(key): unknown key \"\(name)\" (known: id, name, sinks, sharedContexts, volumeGroups, display)")
            }
        }
    }
}
