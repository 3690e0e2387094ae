import DeckSession
import DeckUI

/// One audio zone as the config describes it (AAOS's CarAudioZone): the seats that hear one mix,
/// with their own sinks, focus, volumes and now playing.
public struct ZoneSettings: Sendable, Equatable {
    /// How the zone is named in requests (`"zone": "rear"`) and on the bus (`deck.rear`).
    public var id: String
    /// How the zone is shown to people.
    public var name: String
    /// The names of the sinks that play this zone's audio; a sink is in one zone.
    public var sinks: [String] = []
    /// Contexts whose audio, played in this zone, is heard in every zone and is arbitrated by
    /// every zone's session (a safety chime everywhere); the rest stay in the zone.
    public var sharedContexts: Set<AudioContext> = []
    /// The zone's volume groups; nil: the session's.
    public var volumeGroups: VolumeGroups?
    /// The zone's display; nil: the config's `display` (without driving's limits, for a passenger
    /// zone: driving limits only the primary zone's display, as in AAOS).
    public var display: DisplayProfile?

    public init(id: String, name: String? = nil, sinks: [String] = [], sharedContexts: Set<AudioContext> = [],
                volumeGroups: VolumeGroups? = nil, display: DisplayProfile? = nil) {
        self.id = id
        self.name = name ?? id
        self.sinks = sinks
        self.sharedContexts = sharedContexts
        self.volumeGroups = volumeGroups
        self.display = display
    }

    /// The one zone a config without zones has: everything plays in it.
    public static let primary = ZoneSettings(id: "primary", name: "Primary")

    /// Most zones a runtime mixes for: each zone's sinks take a mix of their own, and the output
    /// makes at most four.
    public static let maxZones = 4
}
