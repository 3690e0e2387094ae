import DeckRuntime
import DeckSession
import DeckStream
import Glibc

/// Audio zones: what a zone's mix and encode cost against a runtime of one zone, and focus
/// decisions per second in each zone and across zones (a shared context).
struct ZonesBench {
    var options: BenchOptions

    func run() throws {
        print("## zones\n")
        try mixCost()
        try decisions()
    }

    /// The real runtime in freewheel, 60 s of audio, one app stream and one sink per zone (each
    /// zone its own mix and encoder); 1, 2 and 4 zones interleaved, median of 5.
    private func mixCost() throws {
        let pcm = StreamBench.stereoSine(seconds: 60)
        var cpu: [Int: [Double]] = [1: [], 2: [], 4: []]
        for _ in 0..<5 {
            for zones in [1, 2, 4] { cpu[zones]!.append(try render(pcm, zones: zones)) }
        }
        let one = cpu[1]!.sorted()[2]
        print("| 60 s of audio, freewheel, an app and a sink per zone (median of 5, interleaved) | CPU (s) | per zone (s) | per zone against one zone |")
        print("|---|---|---|---|")
        for zones in [1, 2, 4] {
            let total = cpu[zones]!.sorted()[2]
            print("| \(zones) zone\(zones == 1 ? " (reference)" : "s") | \(String(format3: total)) | \(String(format3: total / Double(zones))) | "
                + "\(String(format2: total / Double(zones) / one))× |")
        }
        print("\nEach zone is one more mix and one more Opus encode; the loop, the clock and the run are shared.\n")
    }

    private func render(_ pcm: [Float], zones count: Int) throws -> Double {
        var configuration = RuntimeConfiguration.benchDefault
        configuration.audio.freewheel = true
        configuration.audio.durationSamples = pcm.count / 2
        configuration.sinks = []
        configuration.session.alwaysActive = true
        configuration.zones = (0..<count).map { ZoneSettings(id: "z\($0)", sinks: ["sink\($0)"]) }
        let runtime = try Runtime(configuration: configuration, logger: Logger(level: .error))
        let sources = (0..<count).map { _ in BenchSource(pcm: pcm) }
        for zone in 0..<count {
            runtime.output.attach(CallbackSink(name: "sink\(zone)") { _ in }, label: SinkLabel(name: "sink\(zone)"))
            try runtime.output.openStream(for: "app\(zone)", source: sources[zone].renderSource, gain: 1, counters: StreamCounters(),
                                          zones: 1 << zone)
        }
        runtime.onOutputFinished = { [unowned runtime] in runtime.shutdown() }
        let measured = try Measurement.of {
            try runtime.startOutput()
            runtime.loop.run()
        }
        withExtendedLifetime(sources) {}
        return measured.cpu
    }

    /// Integrator requests and abandons through each zone's coordinator, as `session.request`
    /// makes them: in one zone of one, in each of four zones in turn, and of a context every zone
    /// shares (each decision made in all four sessions).
    private func decisions() throws {
        let rounds = 50_000
        func perSecond(zones count: Int, shared: Bool) throws -> Double {
            var configuration = RuntimeConfiguration.benchDefault
            configuration.sinks = []
            configuration.zones = (0..<count).map { ZoneSettings(id: "z\($0)", sharedContexts: shared ? [.safety] : []) }
            let runtime = try Runtime(configuration: configuration, logger: Logger(level: .error))
            defer { runtime.shutdown() }
            let zones = runtime.zones.list
            let contexts: [AudioContext] = shared ? [.safety] : [.navigation, .safety, .vehicleStatus, .notification]
            let measured = Measurement.of {
                for round in 0..<rounds {
                    let focus = zones[round % zones.count].focus
                    let owner = FocusOwner.integrator("bench\(round % 8)")
                    _ = focus.requestFocus(FocusRequest(owner: owner, context: contexts[round % contexts.count], type: .gainTransientMayDuck))
                    focus.abandonFocus(owner)
                }
            }
            return Double(rounds * 2) / measured.cpu
        }
        let one = try perSecond(zones: 1, shared: false), four = try perSecond(zones: 4, shared: false)
        let shared = try perSecond(zones: 4, shared: true)
        print("| work (\(rounds * 2) decisions, request + abandon, through the coordinators) | decisions per CPU second | against one zone |")
        print("|---|---|---|")
        print("| 1 zone (reference) | \(Int(one)) | 1.00× |")
        print("| 4 zones, each request in one zone | \(Int(four)) | \(String(format2: four / one))× |")
        print("| 4 zones, a context every zone shares (made in all 4 sessions) | \(Int(shared)) | \(String(format2: shared / one))× |")
        print("\nA zone's decision weighs only its own session; a shared context is decided once per zone.\n")
    }
}
