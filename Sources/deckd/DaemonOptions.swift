import DeckRuntime

/// `deckd`'s command line. Flags override the config file.
struct DaemonOptions {
    var configFile: String?
    var socketPath: String?
    var tcp: String?
    var tokenFile: String?
    var tcpAllowRemote = false
    var pluginDirectories: [String] = []
    var policyFile: String?
    var logLevel: LogLevel?
    var logTarget = LogTarget.auto
    var journalSocket = JournalWriter.defaultSocket
    var insecurePlugins = false
    var isolation: IsolationPolicy.Mode?
    var outputDirectory: String?
    var overwriteFiles = false
    var statePath: String?
    var resume = false
    var mpris = false
    var watch = false
    var simulator: String?
    var sinks: [String] = []
    var play: (pluginID: String, item: String?)?
    var freewheel = false
    var durationSeconds: Double?
    var showHelp = false
    var showVersion = false
    var checkConfig = false

    static let usage = """
        usage: deckd [--config FILE] [--plugins DIR]... [--policy FILE] [--socket PATH]
                     [--tcp HOST:PORT --token-file FILE [--tcp-allow-remote]] [--sink URI]...
                     [--output-dir DIR] [--overwrite-files] [--play PLUGIN_ID[:ITEM]]
                     [--freewheel] [--duration SECONDS] [--log-level LEVEL]
                     [--log-target auto|journal|stderr] [--journal-socket PATH]
                     [--state FILE|none] [--resume] [--mpris] [--watch] [--simulator HOST:PORT] [--insecure-plugins]
                     [--isolation process|inline]
                     [--check-config] [--help] [--version]

        Runs the Deck plugin runtime until SIGINT or SIGTERM (or until --duration of audio is made).
        SIGHUP rescans the plugin folders for new bundles; SIGUSR1 logs a status line.

          --config FILE        JSON config (every key, its range and unit: docs/integrator-guide.md);
                               relative paths are from the file's folder
          --plugins DIR        load the *.deckplugin bundles in DIR (repeatable; replaces the config's
                               list and the default, the first-party plugins next to deckd)
          --policy FILE        the integrator's entitlement policy (default: grant what is declared)
          --socket PATH        the JSON-RPC control socket (default $XDG_RUNTIME_DIR/deck.sock,
                               else /tmp/deck-$UID.sock)
          --tcp HOST:PORT      also serve JSON-RPC on TCP (loopback unless --tcp-allow-remote);
                               clients must call auth.login with the token first
          --token-file FILE    the TCP token: the file's first line, at least 16 characters; the file
                               must be yours and not readable by group or others (chmod 600)
          --tcp-allow-remote   let --tcp listen on an address other than loopback
          --sink URI           send the Opus stream to URI (repeatable; replaces the default
                               http://127.0.0.1:8000/stream.opus): file:PATH.opus,
                               http://HOST:PORT/PATH, rtp://HOST:PORT?pt=96&sdp=PATH;
                               file:PATH?pipe into a FIFO, file:- into standard output (a pipe)
          --output-dir DIR     the folder where clients may add file sinks (sinks.add); without it
                               they may not
          --overwrite-files    let file sinks replace existing regular files (never links or FIFOs)
          --play ID[:ITEM]     start plugin ID playing ITEM at start-up, as a remote play would
          --freewheel          render as fast as possible instead of in real time
          --duration SECONDS   stop after this much audio has been produced, then exit
          --log-level LEVEL    error, warning, info (default) or debug
          --log-target TARGET  journal: records with fields (DECK_SOURCE, DECK_PLUGIN, MESSAGE_ID) to
                               systemd's journal; stderr: text lines; auto (default): the journal
                               when stderr is connected to it (JOURNAL_STREAM), else stderr
          --journal-socket PATH  the journal's native socket (default /run/systemd/journal/socket;
                               a journald namespace's is /run/systemd/journal.NAMESPACE/socket)
          --state FILE|none    where the last source and the volumes are kept
                               (default $XDG_STATE_HOME/deck/state.json, else
                               ~/.local/state/deck/state.json; none with --duration)
          --resume             play the last source again at start, as a head unit at ignition
          --mpris              also appear on the D-Bus session bus as org.mpris.MediaPlayer2.deck
          --watch              reload a plugin when its bundle's manifest or library changes
                               (it plays again from where it was); for plugin authors
          --simulator HOST:PORT  serve a head unit in the browser at http://HOST:PORT/ (loopback
                               only; your user only): the screens, now playing, the session and
                               the volume keys, live; for plugin authors
          --insecure-plugins   load bundles writable by group/others or owned by another user
          --isolation MODE     where plugins the policy does not name run: process (default: each
                               in a deck-plugin-host process of its own) or inline (in deckd)
          --check-config       read the config, policy and flags as a start would, say what is wrong
                               (status 2) or sum them up (status 0), and exit: nothing is loaded,
                               opened or made
          --help, --version    print this help or the version and exit

        Exit status: 0 after a clean shutdown (or a valid --check-config), 1 on a runtime failure
        (including an output with nowhere to go, or a --play that could not start), 2 on a usage or
        config error.
        """

    /// Parses `arguments` (without the program name); `--flag=value` and `--flag value` both work.
    static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        var options = DaemonOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            var flag = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                guard let given = inlineValue ?? remaining.popFirst(), inlineValue != nil || !given.hasPrefix("--") else {
                    throw UsageError("\(flag) needs a value")
                }
                guard !given.isEmpty else { throw UsageError("\(flag) needs a value, not an empty one") }
                return given
            }
            func noValue() throws(UsageError) {
                if inlineValue != nil { throw UsageError("\(flag) takes no value") }
            }
            switch flag {
            case "--config": options.configFile = try value()
            case "--plugins": options.pluginDirectories.append(try value())
            case "--socket": options.socketPath = try value()
            case "--tcp": options.tcp = try value()
            case "--token-file": options.tokenFile = try value()
            case "--tcp-allow-remote": try noValue(); options.tcpAllowRemote = true
            case "--policy": options.policyFile = try value()
            case "--log-level":
                let name = try value()
                guard let level = LogLevel(name: name) else {
                    throw UsageError("--log-level must be error, warning, info or debug, not '\(name)'")
                }
                options.logLevel = level
            case "--log-target":
                let name = try value()
                guard let target = LogTarget(rawValue: name) else {
                    throw UsageError("--log-target must be auto, journal or stderr, not '\(name)'")
                }
                options.logTarget = target
            case "--journal-socket": options.journalSocket = try value()
            case "--insecure-plugins": try noValue(); options.insecurePlugins = true
            case "--isolation":
                let name = try value()
                guard let mode = IsolationPolicy.Mode(rawValue: name) else { throw UsageError("--isolation must be process or inline, not \(name)") }
                options.isolation = mode
            case "--output-dir": options.outputDirectory = try value()
            case "--overwrite-files": try noValue(); options.overwriteFiles = true
            case "--state": options.statePath = try value()
            case "--resume": try noValue(); options.resume = true
            case "--mpris": try noValue(); options.mpris = true
            case "--watch": try noValue(); options.watch = true
            case "--simulator":
                let text = try value()
                guard let address = try? SocketAddress(hostPort: text), address.isLoopback else {
                    throw UsageError("--simulator must be a loopback HOST:PORT (e.g. 127.0.0.1:8090), not '\(text)'")
                }
                options.simulator = text
            case "--sink":
                let uri = try value()
                do { _ = try SinkLabel.parse(uri) } catch { throw UsageError(error.description) }
                options.sinks.append(uri)
            case "--play":
                let target = try value()
                let parts = target.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard let id = parts.first, !id.isEmpty else { throw UsageError("--play needs PLUGIN_ID[:ITEM]") }
                options.play = (id, parts.count > 1 ? parts[1] : nil)
            case "--freewheel": try noValue(); options.freewheel = true
            case "--duration":
                let text = try value()
                guard let seconds = Double(plainDecimal: text), seconds > 0, seconds <= MediaTime.limit else {
                    throw UsageError("--duration must be a number of seconds above 0 and at most 1e9, not '\(text)'")
                }
                options.durationSeconds = seconds
            case "--help", "-h": try noValue(); options.showHelp = true
            case "--version": try noValue(); options.showVersion = true
            case "--check-config": try noValue(); options.checkConfig = true
            default:
                throw UsageError(argument.hasPrefix("-") ? "unknown option \(flag)" : "unexpected argument '\(argument)'")
            }
        }
        if options.tcp != nil && options.tokenFile == nil { throw UsageError("--tcp needs --token-file: TCP clients must log in") }
        if options.tcp == nil && options.tokenFile != nil { throw UsageError("--token-file goes with --tcp HOST:PORT") }
        if options.tcp == nil && options.tcpAllowRemote { throw UsageError("--tcp-allow-remote goes with --tcp HOST:PORT") }
        return options
    }
}

/// Where deckd's log goes.
enum LogTarget: String {
    case auto, journal, stderr
}

/// A command-line mistake: reported on one line with a hint, exit status 2.
struct UsageError: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}
