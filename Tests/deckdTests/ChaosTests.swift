import DeckBase
import DeckFuzz
import DeckTestSupport
import Foundation
import Testing

/// deckd with its first-party apps in host processes, under random calls from several clients at
/// once, garbage, clients that hang up, apps unloaded and loaded again and hosts killed or
/// stopped: every request gets its own answer, and deckd carries on. `make test` runs it for
/// 15 s; `make chaos` for `CHAOS_SECONDS` (DECK_CHAOS_SECONDS, with DECK_CHAOS_SEED).
@Suite struct ChaosTests {
    static let seconds = ProcessInfo.processInfo.environment["DECK_CHAOS_SECONDS"].flatMap { Double($0) } ?? 15
    static let seed = ProcessInfo.processInfo.environment["DECK_CHAOS_SEED"].flatMap { UInt64($0) } ?? UInt64(time(nil))

    /// Lines that are not requests; each is answered with a null id, and its client then hangs up.
    static let garbage = ["{", "[]", "[1,2]", "\u{FF}", #"{"jsonrpc":"2.0","id":1,"method":1}"#, String(repeating: "[", count: 5_000),
                          #"{"jsonrpc":"2.0","id":[1],"method":"runtime.info"}"#, #"{"jsonrpc":"2.0","id":1e400,"method":"runtime.info"}"#]

    /// Strings an answer named (ids, items, URIs), which the next calls may use.
    static func harvest(_ value: JSONValue, into strings: inout Set<String>) {
        switch value {
        case .object(let members):
            for (key, member) in members {
                if ["id", "item", "uri", "bundle", "zone", "group", "name", "node"].contains(key), let text = member.stringValue, text.utf8.count < 300 {
                    strings.insert(text)
                }
                harvest(member, into: &strings)
            }
        case .array(let elements): elements.prefix(50).forEach { harvest($0, into: &strings) }
        default: break
        }
    }

    @Test func everyRequestGetsItsOwnAnswerAndDeckdCarriesOn() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/out", withIntermediateDirectories: true)
        let daemon = try DeckdProcess.firstParty(["--output-dir", dir.path + "/out", "--sink", "file:\(dir.path)/out/main.opus",
                                                  "--state", dir.path + "/state.json", "--play", "org.deck.tone"])
        var random = SplitMix(seed: ChaosTests.seed)
        let document = try JSONValue.parse(try #require(LineClient(path: daemon.socket).call("rpc.discover")))["result"]
        // A subscriber that never reads is cut off, by design (HostileClientTests); apps are unloaded on purpose below.
        let fuzzer = SchemaFuzzer(document: try #require(document), skip: ["events.subscribe", "apps.unload", "rpc.discover"])
        var clients = (0..<4).map { _ in LineClient(path: daemon.socket) }
        let watcher = LineClient(path: daemon.socket)
        var strings: Set<String> = [], calls = 0, nextID = 1
        var counts = (answered: 0, garbage: 0, hangUps: 0, reloads: 0, signals: 0)
        let end = Date().addingTimeInterval(ChaosTests.seconds), halfway = Date().addingTimeInterval(ChaosTests.seconds / 2)
        let context = "seed \(ChaosTests.seed)"

        func apps() throws -> [JSONValue] {
            let answer = try JSONValue.parse(try #require(watcher.call("apps.list"), "apps.list unanswered (\(context))"))
            return answer["result"]?["apps"]?.arrayValue ?? []
        }

        while Date() < end {
            let slot = Int.random(in: 0..<clients.count, using: &random)
            let roll = Int.random(in: 0..<1_000, using: &random)
            switch counts.reloads == 0 && Date() > halfway ? 50 : roll {  // at least one reload, however slow the machine
            case 0..<30:
                clients[slot].send(line: ChaosTests.garbage.randomElement(using: &random)!)
                clients[slot] = LineClient(path: daemon.socket)
                counts.garbage += 1
            case 30..<50:
                clients[slot].send(line: fuzzer.randomCall(id: 1, strings: Array(strings), using: &random).line)
                clients[slot] = LineClient(path: daemon.socket)
                counts.hangUps += 1
            case 50..<55:
                // An app unloaded and loaded again from its bundle: both succeed.
                guard let app = try apps().filter({ $0["state"] != "disabled" }).randomElement(using: &random),
                      let id = app["id"]?.stringValue, let bundle = app["bundle"]?.stringValue else { continue }
                let unloaded = watcher.call("apps.unload", #"{"id":\#(JSONValue.string(id).encoded())}"#) ?? ""
                #expect(unloaded.contains(#""result":true"#), "apps.unload \(id): \(unloaded) (\(context))")
                let loaded = watcher.call("apps.load", #"{"path":\#(JSONValue.string(bundle).encoded())}"#) ?? ""
                #expect(loaded.contains(#""result""#), "apps.load \(bundle): \(loaded) (\(context))")
                counts.reloads += 1
            case 55..<60:
                let hosts = try apps().compactMap { $0["pid"]?.intValue }
                guard let pid = hosts.randomElement(using: &random) else { continue }
                kill(pid_t(pid), [SIGKILL, SIGSEGV, SIGSTOP].randomElement(using: &random)!)
                counts.signals += 1
            default:
                // One request, or one time in twenty a batch of two to four: each gets its own answer.
                let size = Int.random(in: 0..<20, using: &random) == 0 ? Int.random(in: 2...4, using: &random) : 1
                let ids = (nextID..<(nextID + size)).map { Int64($0) }
                nextID += size
                let requests = ids.map { fuzzer.randomCall(id: Int($0), strings: Array(strings), using: &random) }
                let line = size == 1 ? requests[0].line : "[" + requests.map(\.line).joined(separator: ",") + "]"
                let what = "\(requests.map(\.method)): \(line.prefix(600)) (\(context))"
                clients[slot].send(line: line)
                var answer: JSONValue?
                while answer == nil, let text = clients[slot].readLine() {
                    let reply = try JSONValue.parse(text)
                    if reply["method"] == nil { answer = reply }  // not a notification
                }
                let replies = try #require(size == 1 ? answer.map { [$0] } : answer?.arrayValue, "no answer to \(what)")
                #expect(replies.map { $0["id"] } == ids.map { .int($0) }, "\(what) → \(answer?.encoded().prefix(600) ?? "")")
                for result in replies.compactMap({ $0["result"] }) { ChaosTests.harvest(result, into: &strings) }
                counts.answered += size
            }
            calls += 1
            if calls % 200 == 0 {
                let started = Date()
                #expect(watcher.call("runtime.info")?.contains(#""result""#) == true, "runtime.info unanswered (\(context))")
                #expect(Date().timeIntervalSince(started) < 2, "runtime.info took \(Date().timeIntervalSince(started)) s (\(context))")
            }
        }
        #expect(daemon.process.isRunning, "\(context)\n\(daemon.log.suffix(3_000))")
        #expect(counts.answered > 100 && counts.reloads > 0, "\(counts) (\(context))")
        #expect(try apps().count == 2, "the first-party apps are all still loaded (\(context))")
        #expect(daemon.stop() == 0, "\(context)\n\(daemon.log.suffix(3_000))")
    }
}
