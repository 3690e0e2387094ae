import DeckBase
import Glibc

/// Volume groups as in AAOS's CarVolumeGroup: contexts share a group, each group has an index
/// from 0 (silent) to `maxIndex`, a mute, and a curve from index to gain (`stepDecibels` per step
/// below full; every group starts at full). The session multiplies each stream's focus gain by
/// its group's gain.
public struct VolumeGroups: Sendable, Equatable {
    public struct Group: Sendable, Equatable {
        public var name: String
        public var contexts: [AudioContext]
        public var maxIndex = 40
        /// The lowest index the group may be set to (0 is silence).
        public var minIndex = 0
        public var stepDecibels = 1.5
        public var index: Int
        public var muted = false
        /// Emergency and safety sounds may be turned down but never muted or silenced.
        public var canSilence = true

        /// The lowest index allowed: `minIndex`, and never silence for a protected group.
        public var lowestIndex: Int { canSilence ? minIndex : max(minIndex, 1) }

        /// The group's level in dB, to 0.01 dB (three steps of 0.1 are -0.3, not -0.30000000000000004);
        /// nil is silence (index 0, or muted).
        public var decibels: Double? {
            muted || index == 0 ? nil : (Double(index - maxIndex) * stepDecibels * 100).rounded() / 100
        }

        public var gain: Float { decibels.map { Float(pow(10, $0 / 20)) } ?? 0 }
    }

    /// Longest group name, in bytes: a name is a label for a screen and a key in calls.
    public static let maxNameBytes = 64

    public private(set) var groups: [Group]

    /// Groups read from config: `[{"name": "media", "contexts": ["music"], "maxIndex": 40,
    /// "stepDb": 1.5, "index": 40, "protected": false}, …]`, replacing the defaults whole. A
    /// protected group can be turned down but not muted or silenced.
    public init(json: JSONValue) throws(SessionConfigurationError) {
        guard let list = json.arrayValue, !list.isEmpty else { throw .invalid("session.volumeGroups must be a non-empty array of groups") }
        var groups: [Group] = []
        for (position, item) in list.enumerated() {
            let at = "session.volumeGroups[\(position)]"
            guard case .object(let fields) = item else { throw .invalid("\(at) must be an object") }
            if let unknown = fields.keys.sorted().first(where: { !["name", "contexts", "minIndex", "maxIndex", "stepDb", "index", "protected"].contains($0) }) {
                throw .invalid("unknown key \"\(at).\(unknown)\" (known: name, contexts, minIndex, maxIndex, stepDb, index, protected)")
            }
            guard let name = fields["name"]?.stringValue, (1...VolumeGroups.maxNameBytes).contains(name.utf8.count),
                  !groups.contains(where: { $0.name == name }) else {
                throw .invalid("\(at).name must be 1 to \(VolumeGroups.maxNameBytes) bytes, a name no other group has")
            }
            guard let contextList = fields["contexts"]?.arrayValue else { throw .invalid("\(at).contexts must be an array of contexts") }
            var contexts: [AudioContext] = []
            for value in contextList {
                guard let context = value.stringValue.flatMap(AudioContext.init(rawValue:)) else { throw .unknownContext(PrintableText.excerpt(value.stringValue ?? value.encoded())) }
                guard !groups.contains(where: { $0.contexts.contains(context) }), !contexts.contains(context) else {
                    throw .invalid("\(at): \(context.rawValue) is in more than one volume group")
                }
                contexts.append(context)
            }
            /// A whole-number key within `range`, `otherwise` when absent; another type is an error, not the default.
            func whole(_ key: String, _ range: ClosedRange<Int>, otherwise: Int) throws(SessionConfigurationError) -> Int {
                guard let value = fields[key] else { return otherwise }
                guard let number = value.integer(in: range) else { throw .invalid("\(at).\(key) must be \(range.lowerBound) to \(range.upperBound)") }
                return number
            }
            let maxIndex = try whole("maxIndex", 1...100, otherwise: 40)
            let minIndex = try whole("minIndex", 0...(maxIndex - 1), otherwise: 0)
            guard let step = fields["stepDb"].map({ $0.number(in: 0.1...6) }) ?? 1.5 else { throw .invalid("\(at).stepDb must be 0.1 to 6 dB") }
            let index = try whole("index", minIndex...maxIndex, otherwise: maxIndex)
            guard fields["protected"] == nil || fields["protected"]?.boolValue != nil else { throw .invalid("\(at).protected must be true or false") }
            let protected = fields["protected"]?.boolValue ?? false
            groups.append(Group(name: name, contexts: contexts, maxIndex: maxIndex, minIndex: minIndex, stepDecibels: step,
                                index: protected ? max(index, 1) : index, canSilence: !protected))
        }
        self.groups = groups
    }

    /// Media, navigation, voice, call, alerts (ring, alarm, notification, system), safety.
    private init(groups: [Group]) { self.groups = groups }

    public static let automotive = VolumeGroups(groups: [
        Group(name: "media", contexts: [.music, .announcement], index: 40),
        Group(name: "navigation", contexts: [.navigation], index: 40),
        Group(name: "voice", contexts: [.voiceCommand], index: 40),
        Group(name: "call", contexts: [.call], index: 40),
        Group(name: "alerts", contexts: [.callRing, .alarm, .notification, .systemSound], index: 40),
        Group(name: "safety", contexts: [.emergency, .safety, .vehicleStatus], index: 40, canSilence: false),
    ])

    public func group(named name: String) -> Group? { groups.first { $0.name == name } }

    public func group(for context: AudioContext) -> Group? { groups.first { $0.contexts.contains(context) } }

    /// The gain of the group `context` belongs to (1 for a context in no group).
    public func gain(for context: AudioContext) -> Float { group(for: context)?.gain ?? 1 }

    /// Sets a group's index, which unmutes it (as AAOS's volume groups do: a driver who turns the
    /// volume wants to hear it); the reason when it cannot be.
    public mutating func set(_ name: String, index: Int) throws(VolumeError) {
        guard let position = groups.firstIndex(where: { $0.name == name }) else { throw .noSuchGroup(name, groups.map(\.name)) }
        let lowest = groups[position].lowestIndex
        guard (lowest...groups[position].maxIndex).contains(index) else {
            throw .indexOutOfRange(name, index, lowest, groups[position].maxIndex)
        }
        groups[position].index = index
        groups[position].muted = false
    }

    /// Steps a group's index by `steps`, clamped to its range (as volume keys do at the ends).
    public mutating func adjust(_ name: String, steps: Int) throws(VolumeError) {
        guard let group = group(named: name) else { throw .noSuchGroup(name, groups.map(\.name)) }
        try set(name, index: min(max(group.index + steps, group.lowestIndex), group.maxIndex))
    }

    public mutating func mute(_ name: String, _ muted: Bool) throws(VolumeError) {
        guard let position = groups.firstIndex(where: { $0.name == name }) else { throw .noSuchGroup(name, groups.map(\.name)) }
        guard !muted || groups[position].canSilence else { throw .cannotMute(name) }
        groups[position].muted = muted
    }
}

/// A volume change that cannot be made.
public enum VolumeError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchGroup(String, [String])
    case indexOutOfRange(String, Int, Int, Int)
    case cannotMute(String)

    public var description: String {
        switch self {
        case .noSuchGroup(let name, let known): "no volume group \"\(name)\"; known: \(known.joined(separator: ", "))"
        case .indexOutOfRange(let name, let index, let low, let high): "\(name) volume \(index) is out of range (\(low) to \(high))"
        case .cannotMute(let name): "the \(name) group cannot be muted: emergency and safety sounds always play"
        }
    }
}
