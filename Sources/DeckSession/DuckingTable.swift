import DeckBase

/// Who ducks whom among contexts playing at once: each context ducks the contexts it lists
/// (AOSP's CarAudioContext "contexts to duck"); a context no active holder lists plays at full
/// level. The integrator replaces any context's list in config:
///
///     "ducking": {"navigation": ["music", "announcement"]}
public struct DuckingTable: Sendable, Equatable {
    private var ducked: [AudioContext: Set<AudioContext>] {
        didSet { masks = DuckingTable.masks(of: ducked) }
    }
    /// Each context's row as a bit per context it ducks, for decisions that weigh every pair of holders.
    private var masks: [UInt16]

    init(ducked: [AudioContext: Set<AudioContext>]) {
        self.ducked = ducked
        masks = DuckingTable.masks(of: ducked)
    }

    /// The contexts `context` ducks while it plays.
    public subscript(context: AudioContext) -> Set<AudioContext> { ducked[context] ?? [] }

    /// Whether `context`, playing, ducks `other`.
    public func ducks(_ context: AudioContext, _ other: AudioContext) -> Bool { masks[context.index] & (1 << other.index) != 0 }

    private static func masks(of ducked: [AudioContext: Set<AudioContext>]) -> [UInt16] {
        AudioContext.allCases.map { context in (ducked[context] ?? []).reduce(UInt16(0)) { $0 | (1 << $1.index) } }
    }

    public static func == (a: DuckingTable, b: DuckingTable) -> Bool { a.masks == b.masks }

    /// Android Automotive's table.
    public static let automotive = DuckingTable(ducked: [
        .music: [],
        .navigation: [.music, .callRing, .call, .alarm, .notification, .systemSound, .vehicleStatus, .announcement],
        .voiceCommand: [.callRing],
        .callRing: [],
        .call: [.callRing, .alarm, .notification, .vehicleStatus],
        .alarm: [.music],
        .notification: [.music, .alarm, .announcement],
        .systemSound: [.music, .alarm, .announcement],
        .emergency: [.call],
        .safety: [.music, .navigation, .voiceCommand, .callRing, .call, .alarm, .notification, .systemSound,
                  .vehicleStatus, .announcement],
        .vehicleStatus: [.music, .callRing, .announcement],
        .announcement: [.music],
    ])

    /// Applies `{"context": ["ducked", …]}` over this table; each listed context's list is replaced.
    public func overriding(_ json: JSONValue) throws(SessionConfigurationError) -> DuckingTable {
        guard case .object(let rows) = json else { throw .invalid("session.ducking must be an object of context lists") }
        var table = self
        for (name, list) in rows {
            guard let context = AudioContext(rawValue: name) else { throw .unknownContext(name) }
            guard let items = list.arrayValue else { throw .invalid("session.ducking.\(name) must be an array of contexts") }
            var contexts = Set<AudioContext>()
            for item in items {
                guard let itemName = item.stringValue, let ducked = AudioContext(rawValue: itemName) else {
                    throw .unknownContext(PrintableText.excerpt(item.stringValue ?? item.encoded()))
                }
                contexts.insert(ducked)
            }
            table.ducked[context] = contexts
        }
        return table
    }
}
