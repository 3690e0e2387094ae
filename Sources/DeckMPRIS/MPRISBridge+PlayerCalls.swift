import DeckBase
import DeckNowPlaying

/// What a peer's Player method asks for, decided before it becomes a command.
extension MPRISBridge {
    /// What a Player method asks for.
    package enum PlayerCall: Equatable {
        case run(RemoteCommand), ignore, invalid(String), unknown
    }

    /// The boundary for a peer's Player call: offsets and positions are checked against
    /// `MediaTime`'s range before they become a command; a SetPosition for another track is
    /// ignored, as MPRIS says.
    package static func decide(_ name: String, _ arguments: [DBusValue], trackID: String) -> PlayerCall {
        switch name {
        case "Play": return .run(.play)
        case "Pause": return .run(.pause)
        case "PlayPause": return .run(.togglePlayPause)
        case "Stop": return .run(.stop)
        case "Next": return .run(.next)
        case "Previous": return .run(.previous)
        case "Seek":
            guard arguments.count == 1, case .int64(let offset) = arguments[0] else { return .invalid("Seek takes an offset in microseconds (x)") }
            guard let time = MediaTime(microseconds: offset, in: MediaTime.offsets) else {
                return .invalid("the offset \(offset) µs is beyond ±\(MediaTime.limit) s")
            }
            return .run(.skip(time.seconds))
        case "SetPosition":
            guard arguments.count == 2, case .objectPath(let track) = arguments[0], case .int64(let position) = arguments[1] else {
                return .invalid("SetPosition takes a track id (o) and a position in microseconds (x)")
            }
            guard track == trackID else { return .ignore }
            guard let time = MediaTime(microseconds: position) else {
                return .invalid("the position \(position) µs is not from 0 to \(MediaTime.limit) s")
            }
            return .run(.seek(time.seconds))
        default: return .unknown
        }
    }
}
