import DeckBase
import Glibc

/// `deckctl`: the control CLI. It speaks JSON-RPC 2.0 to `deckd` over the control socket only.
enum ControlClient {
    static let version = "0.1.0"

    struct Command: Sendable {
        var name: String
        var usage: String
        var summary: String
        var run: @Sendable (Session, [String]) throws(ClientError) -> Void
    }

    static let usage = """
        usage: deckctl [--socket PATH] [--zone ZONE] [--timeout SECONDS] [--json] COMMAND [ARGS...]

        Controls a running deckd over its JSON-RPC socket
        (default: $XDG_RUNTIME_DIR/deck.sock, else /tmp/deck-$UID.sock; when that is not there
        and the service's /run/deck/deck.sock is, that one).

        Commands:
        \(commands.map { "  \($0.usage.padding(28))\($0.summary)" }.joined(separator: "\n"))

        deckctl COMMAND --help shows one command. --json prints the raw JSON result. --zone acts on an
        audio zone (deckctl zones lists them) instead of the primary one. --timeout is how long to
        wait for deckd to answer (default 30 s; 0 waits for ever; events and --follow wait on).
        These options may also follow the command (deckctl status --json); -- ends them.
        Exit status: 0 success, 1 runtime error, 2 usage error, 3 cannot connect.
        """

    /// The notification topics deckd publishes.
    static let topics = ["apps.changed", "session.changed", "sinks.changed", "volume.changed", "nowPlaying.changed", "queue.changed", "ui.changed"]

    static let commands: [Command] = [
        Command(name: "status", usage: "status", summary: "runtime version, apps, output and sinks") { session, _ throws(ClientError) in
            try session.show("runtime.info") { info in
                let output = info["output"]
                print("Deck \(info["version"].display) (plugin ABI \(info["abi"].display))")
                print("apps: \(info["apps"].display) loaded, \(info["refused"].display) refused")
                print("output: \(output["active"].bool == true ? "active" : "inactive"), \(output["frames"].display) frames, "
                    + "\(output["lateEvents"].display) late")
                print("sinks: \(info["sinks"].display)")
            }
        },
        Command(name: "apps", usage: "apps", summary: "loaded apps (entitlements, +permissions, where each runs) and refused bundles") { session, _ throws(ClientError) in
            try session.show("apps.list") { list in
                for app in list["apps"].elements {
                    let entitlements = app["entitlements"].elements.compactMap(\.string).joined(separator: ",")
                    let permissions = app["permissions"].elements.compactMap(\.string).joined(separator: ",")
                    let isolation = app["pid"].int.map { "process \($0)" } ?? "inline"
                    print("\(app["id"].display)  \(app["version"].display)  \(app["state"].display)  \(app["language"].display)  "
                        + "[\(entitlements.isEmpty ? "none" : entitlements)]" + (permissions.isEmpty ? "" : " +\(permissions)")
                        + "  \(isolation)" + (app["streaming"].bool == true ? "  streaming" : ""))
                }
                for refused in list["refused"].elements { print("refused: \(refused["bundle"].display): \(refused["reason"].display)") }
            }
        },
        Command(name: "launch", usage: "launch ID [ITEM]", summary: "activate an app and play ITEM (default item)") { session, args throws(ClientError) in
            guard (1...2).contains(args.count) else { throw .usage("launch needs an app id and at most one item") }
            let params = "{\"id\":\(JSONDocument.quote(args[0]))" + (args.count > 1 ? ",\"item\":\(JSONDocument.quote(args[1]))" : "") + "}"
            try session.show("apps.launch", params) { app in
                print("\(app["id"].display): \(app["state"].display)" + (app["zone"].string.map { " in \($0)" } ?? ""))
            }
        },
        Command(name: "move", usage: "move ID ZONE", summary: "move an app, with what it plays, to another audio zone") { session, args throws(ClientError) in
            guard args.count == 2 else { throw .usage("move needs an app id and a zone") }
            let params = "{\"id\":\(JSONDocument.quote(args[0])),\"zone\":\(JSONDocument.quote(args[1]))}"
            try session.show("apps.move", params) { app in print("\(app["id"].display) plays in \(app["zone"].string ?? "the primary zone")") }
        },
        Command(name: "zones", usage: "zones", summary: "the audio zones: sinks, shared contexts, session, now playing, apps") { session, _ throws(ClientError) in
            try session.show("zones.list") { list in
                for zone in list["zones"].elements {
                    let shared = zone["sharedContexts"].elements.compactMap(\.string).joined(separator: ",")
                    print("\(zone["id"].display)\(zone["primary"].bool == true ? " (primary)" : "")  \(zone["name"].display)  "
                        + "sinks [\(zone["sinks"].elements.compactMap { $0.int.map(String.init) }.joined(separator: ","))]  "
                        + (shared.isEmpty ? "" : "shares [\(shared)]  ") + (zone["active"].bool == true ? "active" : "inactive")
                        + (zone["owner"].string.map { "  playing \($0)" } ?? "")
                        + "  apps [\(zone["apps"].elements.compactMap(\.string).joined(separator: ","))]")
                }
            }
        },
        Command(name: "session", usage: "session", summary: "audio focus holders, pending request, output state") { session, _ throws(ClientError) in
            try session.show("session.get") { state in
                print("output: \(state["active"].bool == true ? "active" : "inactive")")
                for holder in state["holders"].elements {
                    print("\(holder["owner"].display)  \(holder["context"].display)  \(holder["type"].display)  "
                        + "\(holder["state"].display)  gain \(ControlClient.level(holder["gain"].number ?? 0))")
                }
                if state["pending"].string == nil, state["pending"]["owner"].exists {
                    print("pending: \(state["pending"]["owner"].display) \(state["pending"]["context"].display)")
                }
            }
        },
        Command(name: "volume", usage: "volume [GROUP] [+N|-N|N|mute|unmute]",
                summary: "show the volume groups, or step, set or mute one (the keys' group by default)") { session, args throws(ClientError) in
            guard args.count <= 2 else { throw .usage("volume takes at most a group and a change") }
            let change = args.last.flatMap { $0.first == "+" || $0.first == "-" || Int($0) != nil || $0 == "mute" || $0 == "unmute" ? $0 : nil }
            var group = args.count == 2 || (args.count == 1 && change == nil) ? args[0] : nil
            if args.count == 2 && change == nil { throw .usage("volume's change must be +N, -N, N, mute or unmute, not \(args[1])") }
            let isStep = change?.first == "+" || change?.first == "-"
            if let change, isStep,
               change.count == 1 || !change.dropFirst().allSatisfy({ ("0"..."9").contains($0) }) || Int(change.dropFirst()) == nil {
                throw .usage("volume steps must be +N or -N, N a whole number, not \(change)")
            }
            // A level or a mute without a group is for the group the keys act on (a call's during one), as a step is.
            if group == nil, change != nil, !isStep {
                group = try session.call("volume.get").value["keys"].string ?? "media"
            }
            let named = group.map { ",\"group\":\(JSONDocument.quote($0))" } ?? ""
            let (method, params): (String, String?) = switch change {
            case nil: ("volume.get", nil)
            case "mute", "unmute": ("volume.mute", "{\"muted\":\(change == "mute")\(named)}")
            case let step? where isStep: ("volume.adjust", "{\"steps\":\(Int(step.dropFirst(step.first == "+" ? 1 : 0)) ?? 0)\(named)}")
            case let index?: ("volume.set", "{\"index\":\(Int(index) ?? 0)\(named)}")  // as a number: 007 is 7, not JSON
            }
            let state = try session.call(method, params).value
            let shown = group ?? state["adjusted"].string
            let rows = state["groups"].elements.filter { shown == nil || $0["name"].string == shown }
            if let group, rows.isEmpty {
                let names = state["groups"].elements.compactMap { $0["name"].string }
                throw .runtime("no volume group \(group) (the groups: \(names.joined(separator: ", ")))")
            }
            if session.json { return print(state.text(pretty: false)) }
            for item in rows {
                let level = item["decibels"].text(pretty: false) == "null" ? "silent" : "\(item["decibels"].display) dB"
                print("\(item["name"].display)  \(item["index"].display)/\(item["maxIndex"].display)  \(level)"
                    + (item["muted"].bool == true ? "  muted" : "")
                    + (shown == nil && item["name"].string == state["keys"].string ? "  ◂ keys" : ""))  // what the keys step now
            }
        },
        Command(name: "sinks", usage: "sinks [select ID...|all]",
                summary: "sinks with their counters; select chooses where app audio goes") { session, args throws(ClientError) in
            var method = "sinks.list"
            // sinks.list names every zone's sinks unless asked for one.
            var params = session.zone.map { "{\"zone\":\(JSONDocument.quote($0))}" }
            if let verb = args.first {
                guard verb == "select", args.count > 1 else { throw .usage("sinks takes no arguments, or select ID... | select all") }
                let ids = args.dropFirst()
                if ids == ["all"] {
                    params = "{}"
                } else {
                    let numbers = ids.compactMap { Int($0) }  // as numbers: "+1" and "007" are ids too, but not JSON
                    guard numbers.count == ids.count else { throw .usage("sinks select takes sink ids (see deckctl sinks) or all") }
                    params = "{\"ids\":[\(numbers.map(String.init).joined(separator: ","))]}"
                }
                method = "sinks.select"
            }
            try session.show(method, params) { sinks in
                for sink in sinks.elements {
                    let route = (sink["selected"].bool == true ? "  app audio" : "")
                        + (sink["pinned"].elements.isEmpty ? "" : "  pinned: " + sink["pinned"].elements.map(\.display).joined(separator: ", "))
                    let name = sink["name"].display == sink["uri"].display ? "" : "\(sink["name"].display)  "
                    print("\(sink["id"].display)  \(name)\(sink["uri"].display)  \(sink["kind"].display)\(route)  "
                        + "\(sink["packets"].display) packets  \(sink["bytes"].display) bytes  \(sink["errors"].display) errors"
                        + (sink["clients"].exists ? "  \(sink["clients"].display) clients" : ""))
                }
            }
        },
    ] + playerCommands + uiCommands + [
        Command(name: "events", usage: "events [TOPIC...]", summary: "print notifications as they come (all topics by default)") { session, args throws(ClientError) in
            let topics = args.isEmpty ? ControlClient.topics : args
            let params = "{\"topics\":[" + topics.map(JSONDocument.quote).joined(separator: ",") + "]}"
            _ = try session.call("events.subscribe", params)
            while let line = try session.readLine(following: true) {
                guard let message = JSONDocument(line) else { continue }
                // Bound to a zone: another zone's notifications are not this one's (those of no zone are).
                if let zone = session.zone, let about = message.value["params"]["zone"].string, about != zone { continue }
                if session.json {
                    print(line)
                } else {
                    print("\(message.value["method"].display): \(message.value["params"].text(pretty: false))")
                }
                try ControlClient.flushOutput()  // each line as it comes, also into a pipe
            }
            throw .runtime("deckd closed the connection")  // it stopped: a watcher must not take that for an end
        },
        Command(name: "call", usage: "call METHOD [JSON]", summary: "call any method; JSON is the params") { session, args throws(ClientError) in
            guard (1...2).contains(args.count) else { throw .usage("call needs a method and at most one JSON params value") }
            let result = try session.call(args[0], args.count > 1 ? args[1] : nil)
            print(result.value.text(pretty: !session.json))
        },
    ] + completionCommands

    static func run(_ arguments: [String]) -> Int32 {
        StandardDescriptors.openClosedOnes()
        // A parent may have spawned us with these blocked; `now-playing --follow` must still end on them.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        [SIGINT, SIGTERM, SIGHUP].forEach { sigaddset(&unblocked, $0) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        var socketPath = UnixSocket.clientControlPath
        var json = false
        var zone: String?
        var timeoutMilliseconds = 30_000
        var rest = arguments.dropFirst()
        /// Takes a global option (and its value) off `rest`: true when `argument` was one.
        func global(_ argument: String) throws(ClientError) -> Bool {
            switch argument {
            case "--json": json = true
            case "--socket":
                guard let path = rest.popFirst(), !path.isEmpty else { throw .usage("--socket needs a path") }
                socketPath = path
            case "--zone":
                guard let name = rest.popFirst(), !name.isEmpty else { throw .usage("--zone needs a zone id (deckctl zones lists them)") }
                zone = name
            case "--timeout":
                guard let text = rest.popFirst(), let milliseconds = ControlClient.milliseconds(text) else {
                    throw .usage("--timeout needs seconds from 0 to 86400, such as 5 or 2.5 (0 waits for ever)")
                }
                timeoutMilliseconds = milliseconds
            default: return false
            }
            return true
        }
        var args: [String] = []
        do throws(ClientError) {
            while let argument = rest.first, argument.hasPrefix("-") {
                rest.removeFirst()
                switch argument {
                case "--help", "-h": print(usage); return 0
                case "--version": print("deckctl \(version)"); return 0
                default: guard try global(argument) else { throw .usage("unknown option \(argument)") }
                }
            }
            // After the command the global options may come too (deckctl status --json); `--` ends them.
            while let argument = rest.popFirst() {
                if argument == "--" {
                    args += rest
                    break
                }
                if try !global(argument) { args.append(argument) }
            }
        } catch {
            return report(error)
        }
        guard !args.isEmpty else { return report(.usage("no command given")) }
        let name = args.removeFirst()
        guard let command = commands.first(where: { $0.name == name }) else { return report(.usage("unknown command \(name)")) }
        if args.contains("--help") || args.contains("-h") {
            print("usage: deckctl [--socket PATH] [--zone ZONE] [--timeout SECONDS] [--json] \(command.usage)\n\n\(command.summary)")
            return 0
        }
        // A command whose usage names no arguments refuses them rather than ignore what was meant.
        if command.usage == name, let extra = args.first { return report(.usage("\(name) takes no arguments, not \(extra)")) }
        if name == "complete", args.count == 1, let words = staticCompletions[args[0]] {
            words.forEach { print($0) }
            return 0
        }
        do {
            let session = try Session(path: socketPath, json: json, timeoutMilliseconds: timeoutMilliseconds)
            // Bound once: every call that names no zone acts on it.
            if let zone {
                _ = try session.call("zones.bind", "{\"zone\":\(JSONDocument.quote(zone))}")
                session.zone = zone
            }
            try command.run(session, args)
            return 0
        } catch {
            return report(error)
        }
    }

    /// `--timeout`'s seconds (digits, a fraction allowed, at most a day) in milliseconds, a
    /// fraction of one rounded up; nil for anything else.
    static func milliseconds(_ text: String) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }),
              let seconds = Double(text), seconds <= 86_400 else { return nil }
        return Int((seconds * 1000).rounded(.up))
    }

    /// A linear gain as the volume groups' levels are shown: "-1.5 dB", "silent" at 0.
    static func level(_ gain: Double) -> String {
        guard gain > 0, gain.isFinite else { return "silent" }
        let tenths = (200 * log10(gain)).rounded() / 10
        return "\(tenths == 0 ? 0 : tenths) dB"  // never "-0.0"
    }

    /// Writes out what `print` buffered. Output lost to a full disk, a failing device or a reader
    /// gone (SIGPIPE ignored) is an error, as for `echo > /dev/full`, never a silent success.
    static func flushOutput() throws(ClientError) {
        if let reason = StandardDescriptors.flushOutput() { throw .runtime("cannot write the output: \(reason)") }
    }

    /// The exit status once the output is written: 1 when it could not be, unless already an error.
    static func finish(_ status: Int32) -> Int32 {
        do {
            try flushOutput()
            return status
        } catch {
            let failure = report(error)
            return status == 0 ? failure : status
        }
    }

    private static func report(_ error: ClientError) -> Int32 {
        let (message, status): (String, Int32) = switch error {
        case .usage(let text): ("deckctl: \(text)\nTry 'deckctl --help' for more information.", 2)
        case .cannotConnect(let path, let reason):
            ("deckctl: cannot connect to \(path): \(reason)\nIs deckd running? Start it with `deckd` (or `make run`), or pass --socket PATH.", 3)
        case .untrusted(let path, let reason): ("deckctl: \(path): \(reason)", 3)
        case .runtime(let text): ("deckctl: \(text)", 1)
        }
        _ = (message + "\n").utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
        return status
    }
}

enum ClientError: Error {
    case usage(String)
    case cannotConnect(String, String)
    case untrusted(String, String)
    case runtime(String)
}

extension String {
    func padding(_ width: Int) -> String { count >= width ? self + " " : self + String(repeating: " ", count: width - count) }
}
