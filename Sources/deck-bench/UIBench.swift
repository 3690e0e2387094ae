import DeckRuntime
import Glibc

/// Templates: what reading, checking and publishing a 100-item list costs against parsing and
/// writing the same JSON alone; how long driving takes to re-apply the limits to a 5-deep stack;
/// and how fast the HMI reads the screen over deckd's socket against runtime.info.
struct UIBench {
    var options: BenchOptions

    func run() throws {
        print("## ui (a 100-item list; Tone's screen over deckd's socket)\n")
        try templates()
        try driving()
        try reads()
    }

    /// A list of `count` rows with keys, details and accessories, as a plugin would send it.
    static func list(_ count: Int, title: String = "Stations") -> String {
        "{\"type\": \"list\", \"title\": \"\(title)\", \"sections\": [{\"header\": \"All\", \"items\": ["
            + (0..<count).map { "{\"key\": \"s\($0)\", \"text\": \"Station \($0)\", \"detail\": \"Genre \($0 % 7)\", \"accessory\": \"disclosure\"}" }
                .joined(separator: ",") + "]}]}"
    }

    private func templates() throws {
        let text = UIBench.list(100)
        let limits = DisplayLimits(profile: DisplayProfile(), entitlements: [.audio])
        let app = AppInterface(appID: "org.deck.bench.ui", entitlements: [.audio])
        let (id, _) = try app.setRoot(text, limits: limits)
        let rounds = 20_000
        var bytes = 0
        // Interleaved halves, so drift hits both alike.
        var reference = Measurement(wall: 0, cpu: 0), runtime = Measurement(wall: 0, cpu: 0)
        for _ in 0..<4 {
            let bare = try Measurement.of {
                for _ in 0..<(rounds / 4) { bytes &+= try JSONValue.parse(text).encoded().utf8.count }
            }
            let checked = try Measurement.of {
                for _ in 0..<(rounds / 4) {
                    _ = try app.update(id, text, limits: limits)
                    bytes &+= app.stack.templates[0].visible(under: limits).template.json.encoded().utf8.count
                }
            }
            reference.cpu += bare.cpu
            runtime.cpu += checked.cpu
        }
        print("| 100-item list, \(rounds) times | CPU (s) | per CPU second | vs parse and write alone |")
        print("|---|---|---|---|")
        print("| JSON parse + write of the same text, no checks (reference) | \(String(format3: reference.cpu)) | \(Int(Double(rounds) / max(reference.cpu, 1e-6))) | 1.00× |")
        print("| read, checked, ids kept, limits applied, written for ui.changed | \(String(format3: runtime.cpu)) | "
            + "\(Int(Double(rounds) / max(runtime.cpu, 1e-6))) | \(String(format2: runtime.cpu / reference.cpu))× the cost |")
        if bytes == 42 { print("") }  // keeps the work observable
    }

    private func driving() throws {
        let parked = DisplayLimits(profile: DisplayProfile(), entitlements: [.audio])
        var profile = DisplayProfile()
        profile.limitedUserInterfaces = [.lists, .keyboard]
        let driving = DisplayLimits(profile: profile, entitlements: [.audio])
        let app = AppInterface(appID: "org.deck.bench.ui", entitlements: [.audio])
        _ = try app.setRoot(UIBench.list(100, title: "level 0"), limits: parked)
        for level in 1..<5 { _ = try app.push(UIBench.list(100, title: "level \(level)"), limits: parked) }
        let rounds = 2_000
        var rows = 0
        let measured = Measurement.of {
            for round in 0..<rounds {
                for template in app.stack.templates {
                    rows &+= template.visible(under: round % 2 == 0 ? driving : parked).template.json.encoded().utf8.count
                }
            }
        }
        let microseconds = measured.cpu / Double(rounds) * 1e6
        print("\n| driving starts: the limits re-applied to a 5-deep stack of 100-item lists | CPU per change (µs) | share of a 20 ms audio frame |")
        print("|---|---|---|")
        print("| 5 templates cut to 12 rows (or back to 100) and written for ui.changed | \(String(format3: microseconds)) | "
            + "\(String(format2: microseconds / 20_000 * 100)) % |")
        if rows == 42 { print("") }
    }

    private func reads() throws {
        let folder = try TemporaryFolder()
        let socketPath = folder.path + "/deck.sock"
        let deckd = try Subprocess(options.bin + "/deckd", ["--plugins", options.bin + "/plugins", "--socket", socketPath, "--state", "none",
                                                            "--play", "org.deck.tone:sine-1000", "--sink", "file:\(folder.path)/ui.opus",
                                                            "--log-level", "warning", "--isolation", "inline"])
        defer { deckd.finish(signal: SIGTERM) }
        try RPCClient.waitForSocket(socketPath)
        print("\n| screen reads over the socket, pipelined (Tone: a 37-row list, a content tree) | requests | requests/s | vs runtime.info |")
        print("|---|---|---|---|")
        let info = try RPCBench.pipelined(socketPath, request: #"{"jsonrpc":"2.0","method":"runtime.info","id":1}"#, count: 50_000)
        print("| deckd runtime.info (reference) | 50000 | \(Int(info)) | 1.00× |")
        let screen = try RPCBench.pipelined(socketPath, request: #"{"jsonrpc":"2.0","method":"ui.get","id":1}"#, count: 50_000)
        print("| deckd ui.get | 50000 | \(Int(screen)) | \(String(format2: screen / info))× |")
        print("")
    }
}
