/// `deckctl complete KIND`: the words shell completion offers, one a line, read from the running
/// deckd where they are its own (apps, sinks, volume groups, zones, methods).
extension ControlClient {
    /// Candidates that need no deckd.
    static var staticCompletions: [String: [String]] {
        ["commands": commands.map(\.name), "topics": topics]
    }

    static let completionCommands: [Command] = [
        Command(name: "complete", usage: "complete KIND",
                summary: "completion words, one a line: commands, topics, apps, sinks, groups, zones or methods") { session, args throws(ClientError) in
            guard args.count == 1 else { throw .usage("complete needs one of commands, topics, apps, sinks, groups, zones, methods") }
            let method: String, read: (JSONDocument.Value) -> [String]
            var params: String?
            switch args[0] {
            case "apps": (method, read) = ("apps.list", { $0["apps"].elements.compactMap { $0["id"].string } })
            case "sinks":
                (method, read) = ("sinks.list", { $0.elements.compactMap { $0["id"].int.map(String.init) } })
                // sinks.list names every zone's sinks unless asked for one.
                params = session.zone.map { "{\"zone\":\(JSONDocument.quote($0))}" }
            case "groups": (method, read) = ("volume.get", { $0["groups"].elements.compactMap { $0["name"].string } })
            case "zones": (method, read) = ("zones.list", { $0["zones"].elements.compactMap { $0["id"].string } })
            case "methods": (method, read) = ("rpc.discover", { $0["methods"].elements.compactMap { $0["name"].string } })
            default: throw .usage("complete needs one of commands, topics, apps, sinks, groups, zones, methods, not \(args[0])")
            }
            let words = read(try session.call(method, params).value)
            words.forEach { print($0) }
        },
    ]
}
