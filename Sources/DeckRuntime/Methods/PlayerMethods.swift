import DeckBase
import DeckControl
import DeckNowPlaying

/// `player.*`: remote commands for the app that owns now playing, as the steering wheel sends
/// them. Each is answered when the app answers (or times out); its result maps to an error code.
/// Each acts on the zone it names (default: the primary one). Loop-thread-confined.
struct PlayerMethods {
    let zones: ZoneSet

    var methods: [RPCMethod] {
        let simple: [(String, RemoteCommand, String)] = [
            ("player.play", .play, "Play; with nothing owning now playing, resume what played last."),
            ("player.pause", .pause, "Pause."),
            ("player.togglePlayPause", .togglePlayPause, "Pause when playing, play otherwise."),
            ("player.stop", .stop, "Stop."),
            ("player.next", .next, "The next item."),
            ("player.previous", .previous, "The previous item (or the start of this one, as the app decides)."),
            ("player.like", .like, "Like what plays."),
            ("player.dislike", .dislike, "Dislike what plays."),
            ("player.bookmark", .bookmark, "Bookmark what plays."),
        ]
        var methods = simple.map { name, command, summary in
            method(name, summary) { _, _ throws(RPCError) in command }
        }
        methods.append(method("player.seek", "Move to a position, in seconds.", params: [.init("position", Schema.number(in: MediaTime.positions))]) { call, _ throws(RPCError) in
            .seek(try call.number("position"))
        })
        methods.append(method("player.skip", "Skip forward (positive) or back (negative) by seconds; by default forward by the app's preferred interval.",
                              params: [.init("seconds", Schema.number(in: -86_400...86_400), required: false)]) { call, player throws(RPCError) in
            guard call.optional("seconds") != nil else { return .skip(player.center.skipIntervals.forward) }
            return .skip(try call.number("seconds"))
        })
        methods.append(method("player.setRate", "Set the playback rate (1 is normal speed).", params: [.init("rate", Schema.number(in: -16...16))]) { call, _ throws(RPCError) in
            .setRate(try call.number("rate"))
        })
        methods.append(method("player.setShuffle", "Set shuffle.", params: [.init("mode", Schema.oneOf(ShuffleMode.allCases.map(\.rawValue)))]) { call, _ throws(RPCError) in
            guard let mode = ShuffleMode(rawValue: try call.string("mode")) else { throw .invalidParams("\"mode\" must be off or items") }
            return .setShuffle(mode)
        })
        methods.append(method("player.setRepeat", "Set repeat.", params: [.init("mode", Schema.oneOf(RepeatMode.allCases.map(\.rawValue)))]) { call, _ throws(RPCError) in
            guard let mode = RepeatMode(rawValue: try call.string("mode")) else { throw .invalidParams("\"mode\" must be off, one or all") }
            return .setRepeat(mode)
        })
        return methods
    }

    /// A method that reads its command from the call and answers with the zone owner's result.
    private func method(_ name: String, _ summary: String, params: [RPCMethod.Param] = [],
                        command: @escaping (RPCCall, PlayerCoordinator) throws(RPCError) -> RemoteCommand) -> RPCMethod {
        let zones = zones
        return RPCMethod(name, summary, params: params + [zones.param], result: PlayerMethods.resultSchema,
                         errors: [-32004, -32007, -32008, -32009]) { call, reply throws(RPCError) in
            let player = try zones.zone(of: call).player
            let remote = try command(call, player)
            player.send(remote) { outcome in reply(PlayerMethods.answer(outcome, remote)) }
        }
    }

    static func answer(_ outcome: PlayerCoordinator.Outcome, _ command: RemoteCommand) -> Result<JSONValue, RPCError> {
        switch outcome {
        case .done(.success, let owner):
            .success(["command": .string(command.kind.name), "owner": .string(owner), "result": "success"])
        case .done(.noSuchContent, let owner): .failure(.noSuchContent("\(owner) has no such item for \(command.kind.name)"))
        case .done(.noActionableNowPlayingItem, let owner):
            .failure(.noActionableNowPlayingItem("\(owner) has nothing to \(command.kind.name)"))
        case .done(.commandFailed, let owner): .failure(.commandFailed("\(owner) could not carry out \(command.kind.name)"))
        case .notEnabled(let reason): .failure(.commandDisabled(reason))
        case .noPlayer(let reason): .failure(.noActionableNowPlayingItem(reason))
        case .failed(let reason): .failure(.commandFailed(reason))
        }
    }

    static let resultSchema = Schema.object(["command": Schema.string, "owner": Schema.string, "result": Schema.oneOf(["success"])])
}
