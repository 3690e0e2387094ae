import DeckRuntime
import Glibc

/// `deck-bench [--bin DIR] [--plugin-c BUNDLE] [--runs N] [startup]`: ratios measured side by side in one run.
enum Bench {
    static let usage = """
        usage: deck-bench [--bin DIR] [--plugin-c BUNDLE] [--runs N] [--realtime-seconds N] [SUITE...]

        Suites: startup, stream, session, zones, rpc, nowplaying, ui, simulator, embed, isolation, apps, json (default: all). DIR holds deckd and plugins/ (default: next to deck-bench);
        BUNDLE is the example C plugin's built bundle, loaded beside the first-party ones.
        """

    static func run(_ arguments: [String]) -> Int32 {
        if arguments.count == 4, arguments[1] == "--bare-line-server", let bytes = Int(arguments[3]), (1...1 << 20).contains(bytes) {
            return BareLineServer.runAsProcess(path: arguments[2], answerBytes: bytes)  // the round trip's reference, started by rpc
        }
        var options = BenchOptions()
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "--bin": options.bin = rest.popFirst() ?? ""
            case "--plugin-c": options.pluginC = rest.popFirst()
            case "--runs": options.runs = Int(rest.popFirst() ?? "") ?? 0
            case "--realtime-seconds": options.realtimeSeconds = Int(rest.popFirst() ?? "") ?? 0
            case "--help", "-h": print(usage); return 0
            case "startup", "stream", "session", "zones", "rpc", "nowplaying", "ui", "simulator", "embed", "isolation", "apps", "json": options.suites.append(argument)
            default:
                printError("deck-bench: unknown argument \(argument)\n\(usage)")
                return 2
            }
        }
        guard options.runs > 0, options.realtimeSeconds > 0 else {
            printError("deck-bench: --runs and --realtime-seconds need a positive number")
            return 2
        }
        if options.suites.isEmpty { options.suites = ["startup", "stream", "session", "zones", "rpc", "nowplaying", "ui", "simulator", "embed", "isolation", "apps", "json"] }
        print("# deck-bench on \(MachineInfo.describe())\n")
        do {
            for suite in options.suites {
                switch suite {
                case "stream": try StreamBench(options: options).run()
                case "session": try SessionBench(options: options).run()
                case "zones": try ZonesBench(options: options).run()
                case "rpc": try RPCBench(options: options).run()
                case "nowplaying": try NowPlayingBench(options: options).run()
                case "ui": try UIBench(options: options).run()
                case "simulator": try SimulatorBench(options: options).run()
                case "embed": try EmbedBench(options: options).run()
                case "json": try JSONBench(options: options).run()
                case "isolation": try IsolationBench(options: options).run()
                case "apps": try AppsBench(options: options).run()
                default: try StartupBench(options: options).run()
                }
            }
            return 0
        } catch {
            printError("deck-bench: \(error)")
            return 1
        }
    }
}

extension RuntimeConfiguration {
    /// The default configuration with plugins inline: every suite but `isolation` measures its own
    /// subsystem, without the cost of host processes (which `isolation` measures side by side).
    static var benchDefault: RuntimeConfiguration {
        var configuration = RuntimeConfiguration()
        configuration.policy.isolation.defaultMode = .inline
        return configuration
    }
}

struct BenchOptions {
    var bin = Bench.defaultBin()
    var pluginC: String?
    var runs = 15
    var realtimeSeconds = 60
    var suites: [String] = []
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Bench {
    static func defaultBin() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let path = String(decoding: buffer[..<max(count, 0)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
    }
}

extension Bench {
    /// sdk/include, found from the working directory (make runs benches from the repository root).
    static func sdkInclude() -> String { AbsolutePath.resolve("sdk/include") }
}

/// Writes one message line to standard error.
func printError(_ message: String) {
    _ = (message + "\n").utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}
