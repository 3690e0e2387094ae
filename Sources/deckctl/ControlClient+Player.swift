import DeckBase
import Glibc

/// deckctl's player commands, with playerctl's habits: silent on success, a status line with
/// `now-playing`, `--format '{{artist}} - {{title}}'`, `--follow` for a live line.
extension ControlClient {
    static let playerCommands: [Command] = {
        let simple: [(String, String, String)] = [
            ("play", "player.play", "play (resumes what played last when nothing owns now playing)"),
            ("pause", "player.pause", "pause"),
            ("toggle", "player.togglePlayPause", "play or pause (alias: play-pause)"),
            ("play-pause", "player.togglePlayPause", "play or pause"),
            ("stop", "player.stop", "stop"),
            ("next", "player.next", "the next item"),
            ("previous", "player.previous", "the previous item"),
        ]
        var commands = simple.map { name, method, summary in
            Command(name: name, usage: name, summary: summary) { session, _ throws(ClientError) in
                try session.show(method) { _ in }
            }
        }
        commands.append(Command(name: "seek", usage: "seek [+|-]SECONDS|[+|-]M:SS",
                                summary: "go to a position, or skip forward or back") { session, args throws(ClientError) in
            guard args.count == 1, let target = SeekArgument(args[0]) else {
                throw .usage("seek needs seconds or a time: 90 or 1:30 goes to 1:30, +10 and -0:10 skip")
            }
            if target.isSkip {
                try session.show("player.skip", "{\"seconds\":\(target.seconds)}") { _ in }
            } else {
                try session.show("player.seek", "{\"position\":\(target.seconds)}") { _ in }
            }
        })
        commands.append(Command(name: "now-playing", usage: "now-playing [--follow] [--format F]",
                                summary: "what plays; F like '{{artist}} - {{title}}'") { session, args throws(ClientError) in
            var format: NowPlayingFormat?
            var follow = false
            var rest = args[...]
            while let argument = rest.popFirst() {
                switch argument {
                case "--follow", "-F": follow = true
                case "--format", "-f":
                    guard let text = rest.popFirst() else { throw .usage("--format needs a template, e.g. '{{artist}} - {{title}}'") }
                    format = try NowPlayingFormat(text)
                default: throw .usage("now-playing takes --follow and --format F, not \(argument)")
                }
            }
            let view = NowPlayingView(format: format, json: session.json)
            guard follow else {
                let result = try session.call("nowPlaying.get")
                return withExtendedLifetime(result) { view.print(result.value, age: 0, live: false) }
            }
            try view.follow(session)
        })
        commands.append(Command(name: "queue", usage: "queue", summary: "the queue of what plays, the current item marked") { session, _ throws(ClientError) in
            try session.show("queue.get") { queue in
                guard queue["owner"].string != nil else { return Swift.print("nothing owns now playing") }
                let current = queue["currentIndex"].int
                for (index, item) in queue["items"].elements.enumerated() {
                    let title = item["title"].string ?? item["key"].display
                    let duration = item["duration"].number.map { "  " + NowPlayingView.clock($0) } ?? ""
                    // Its place, as now-playing's {{queueIndex}} counts (the item's id is in --json).
                    Swift.print("\(index == current ? "▶" : " ") \(index + 1)  \(title)\(duration)  (\(item["key"].display))")
                }
                Swift.print("shuffle \(queue["shuffle"].display), repeat \(queue["repeat"].display)")
            }
        })
        return commands
    }()
}
