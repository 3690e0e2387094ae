import DeckSession

/// One audio zone at run time: its session (focus, ducking, idle activation, volume groups) and
/// its now playing. Loop-thread-confined.
public final class Zone {
    public let settings: ZoneSettings
    public let focus: FocusCoordinator
    public let player: PlayerCoordinator

    init(settings: ZoneSettings, focus: FocusCoordinator, player: PlayerCoordinator) {
        self.settings = settings
        self.focus = focus
        self.player = player
    }

    public var id: String { settings.id }
    /// The zone's place in the output's mixes (0: the primary zone).
    public var index: Int { focus.zone }
}
