/// deckctl's screen commands: what the driver sees, selecting, going back, and the display
/// profile (driving on and off).
extension ControlClient {
    static let uiCommands: [Command] = [
        Command(name: "ui", usage: "ui [APP]", summary: "the screen as the head unit lays it out (ids in brackets)") { session, args throws(ClientError) in
            guard args.count <= 1 else { throw .usage("ui takes at most an app id") }
            try session.show("ui.get", args.first.map { "{\"app\":\(JSONDocument.quote($0))}" }) { screen in
                ScreenView(screen: screen).lines.forEach { print($0) }
            }
        },
        Command(name: "select", usage: "select ID|/PATH", summary: "select an item, tab or action by id, or a content item by /path") { session, args throws(ClientError) in
            guard args.count == 1 else { throw .usage("select needs one item id (deckctl ui shows them) or a content /path") }
            let params: String
            if args[0].hasPrefix("/") {
                params = "{\"path\":\(JSONDocument.quote(String(args[0].dropFirst())))}"
            } else {
                guard let id = Int(args[0]), id > 0 else { throw .usage("select needs an item id such as 12, or a content path such as /0/3") }
                params = "{\"id\":\(id)}"
            }
            try session.show("ui.select", params) { screen in ScreenView(screen: screen).lines.forEach { print($0) } }
        },
        Command(name: "back", usage: "back", summary: "dismiss the modal, pop the top template, or leave a content level") { session, _ throws(ClientError) in
            try session.show("ui.back") { screen in ScreenView(screen: screen).lines.forEach { print($0) } }
        },
        Command(name: "display", usage: "display [--driving on|off] [--attached on|off]",
                summary: "the display profile, or change it") { session, args throws(ClientError) in
            var members: [String] = [], given: Set<String> = []
            var rest = args[...]
            while let flag = rest.popFirst() {
                guard ["--driving", "--attached"].contains(flag), let value = rest.popFirst(), ["on", "off"].contains(value) else {
                    throw .usage("display takes --driving on|off and --attached on|off")
                }
                guard given.insert(flag).inserted else { throw .usage("\(flag) is given twice; give it once") }
                members.append("\"\(flag.dropFirst(2))\":\(value == "on")")
            }
            let method = members.isEmpty ? "display.get" : "display.set"
            try session.show(method, members.isEmpty ? nil : "{" + members.joined(separator: ",") + "}") { display in
                print("\(display["width"].display)×\(display["height"].display) @\(display["scale"].display)x, "
                    + (display["attached"].bool == true ? "attached" : "detached") + ", "
                    + (display["driving"].bool == true ? "driving (lists and keyboard limited)" : "parked"))
            }
        },
    ]
}
