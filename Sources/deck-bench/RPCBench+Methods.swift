import DeckRuntime
import Glibc

extension RPCBench {
    /// What each request costs the loop: the dispatcher's whole turn for it (parse, run, encode),
    /// timed one call at a time in a runtime with Tone playing, p50/p99 over `calls` calls each.
    /// The reference row is a request for a method that does not exist: the floor every request pays.
    /// Requests that change the audio (a volume, a stream opened or closed) are paced as taps are:
    /// `calls / 5` of them, the audio thread given a frame after every 16, since a burst of more
    /// than 32 stream switches (or 256 volume steps) between two frames waits for the next frame.
    /// Each row runs twice: with nobody subscribed, then with an HMI taking every topic (what a
    /// request's notifications cost is built only when someone takes them).
    func loopTimePerMethod(calls: Int = 5_000) throws {
        var configuration = RuntimeConfiguration.benchDefault
        configuration.sinks = []
        let runtime = try Runtime(configuration: configuration, logger: Logger(level: .error))
        defer { runtime.shutdown() }
        guard let tone = runtime.plugins.load(options.bin + "/plugins/Tone.deckplugin") else { throw BenchError("cannot load Tone") }
        try tone.activate()
        try runtime.focus.play(pluginID: tone.id, item: "sine-440")
        let dispatcher = runtime.makeDispatcher()
        let connection = RPCConnection { _ in }
        // Pairs alternate, so each call changes something (a volume, a pause) or is undone by the next.
        let changesAudio: Set = ["volume.set", "volume.adjust", "player.pause / player.play", "session.request / session.abandon"]
        let rows: [(name: String, requests: [String])] = [
            ("(no such method: the floor)", [#"{"jsonrpc":"2.0","method":"no.such","id":1}"#]),
            ("runtime.info", [#"{"jsonrpc":"2.0","method":"runtime.info","id":1}"#]),
            ("session.get", [#"{"jsonrpc":"2.0","method":"session.get","id":1}"#]),
            ("nowPlaying.get", [#"{"jsonrpc":"2.0","method":"nowPlaying.get","id":1}"#]),
            ("queue.get", [#"{"jsonrpc":"2.0","method":"queue.get","id":1}"#]),
            ("apps.list", [#"{"jsonrpc":"2.0","method":"apps.list","id":1}"#]),
            ("volume.get", [#"{"jsonrpc":"2.0","method":"volume.get","id":1}"#]),
            ("display.get", [#"{"jsonrpc":"2.0","method":"display.get","id":1}"#]),
            ("sinks.list", [#"{"jsonrpc":"2.0","method":"sinks.list","id":1}"#]),
            ("ui.get", [#"{"jsonrpc":"2.0","method":"ui.get","id":1}"#]),
            ("rpc.discover", [#"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"#]),
            ("volume.set", [#"{"jsonrpc":"2.0","method":"volume.set","params":{"group":"media","index":20},"id":1}"#,
                            #"{"jsonrpc":"2.0","method":"volume.set","params":{"group":"media","index":21},"id":1}"#]),
            ("volume.adjust", [#"{"jsonrpc":"2.0","method":"volume.adjust","params":{"group":"media","steps":1},"id":1}"#,
                               #"{"jsonrpc":"2.0","method":"volume.adjust","params":{"group":"media","steps":-1},"id":1}"#]),
            ("player.pause / player.play", [#"{"jsonrpc":"2.0","method":"player.pause","id":1}"#,
                                            #"{"jsonrpc":"2.0","method":"player.play","id":1}"#]),
            ("session.request / session.abandon", [
                #"{"jsonrpc":"2.0","method":"session.request","params":{"context":"notification","name":"chime"},"id":1}"#,
                #"{"jsonrpc":"2.0","method":"session.abandon","params":{"name":"chime"},"id":1}"#]),
        ]
        print("### Loop time per request (in process, Tone playing; parse, run and encode of one request, \(calls) calls each, "
            + "\(calls / 5) paced for those that change the audio; then again with an HMI subscribed to every topic)\n")
        print("| method | calls | answer (bytes) | p50 (µs) | p99 (µs) | p50 vs the floor | with an HMI subscribed, p50 / p99 (µs) |")
        print("|---|---|---|---|---|---|---|")
        let hmi = RPCConnection { _ in }
        hmi.topics = Set(runtime.events.topics)
        var floor = 1.0
        for row in rows {
            let requests = row.requests.map { Array($0.utf8) }
            let paced = changesAudio.contains(row.name)
            let calls = paced ? calls / 5 : calls
            var answered = 0
            /// p50 and p99 in µs of `calls` calls of the row's requests in turn.
            func measure() throws -> (p50: Double, p99: Double) {
                var samples: [UInt64] = []
                samples.reserveCapacity(calls)
                for index in 0..<calls {
                    let start = Subprocess.now()
                    let answer = dispatcher.handle(requests[index % requests.count], connection: connection)
                    samples.append(Subprocess.now() - start)
                    if index == 0, let answer {
                        guard !answer.contains(#""error""#) || row.name.hasPrefix("(") else { throw BenchError("\(row.name): \(answer)") }
                        answered = answer.utf8.count
                    }
                    if index % 64 == 0 { runtime.loop.runNoWait() }
                    if paced && index % 16 == 15 {
                        runtime.loop.runNoWait()
                        usleep(20_000)  // a frame at the default 20 ms
                        runtime.loop.runNoWait()
                    }
                }
                samples.sort()
                return (Double(samples[calls / 2]) / 1e3, Double(samples[calls * 99 / 100]) / 1e3)
            }
            let alone = try measure()
            runtime.events.add(hmi)
            let watched = try measure()
            runtime.events.remove(hmi)
            runtime.loop.runNoWait()
            if row.name.hasPrefix("(") { floor = alone.p50 }
            print("| \(row.name) | \(calls) | \(answered) | \(String(format1: alone.p50)) | \(String(format1: alone.p99)) | "
                + "\(String(format2: alone.p50 / floor))× | \(String(format1: watched.p50)) / \(String(format1: watched.p99)) |")
        }
        print("")
    }
}
