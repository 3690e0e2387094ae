import DeckBase
import Glibc

/// The dynamic checks: the bundle loaded by a deckd of its own (plugins in host processes, a
/// private socket, a file sink, no state), driven through its control socket as an HMI would;
/// the runtime's own counters, answers and log are what is judged.
struct DynamicRun {
    let bundle: String
    let id: String
    let item: String?
    let deckd: String
    let seconds: Double
    /// The media folders to give it (isolation.mediaFolders).
    let media: [String]
    /// Whether a rule is to be checked.
    let wants: (String) -> Bool
    private(set) var findings: [Finding] = []

    init(bundle: String, id: String, item: String?, deckd: String, seconds: Double, media: [String], wants: @escaping (String) -> Bool) {
        self.wants = wants
        self.bundle = bundle
        self.id = id
        self.item = item
        self.deckd = deckd
        self.seconds = seconds
        self.media = media
    }

    mutating func report(_ rule: String, _ reason: String, at location: String = "") {
        guard let rule = CheckRule.named(rule) else { return }
        findings.append(Finding(rule: rule, reason: reason, location: location.isEmpty ? id : location))
    }

    mutating func run() throws(CheckError) {
        var template = Array(("/tmp/deck-check-" + String(repeating: "X", count: 6)).utf8CString)  // mkdtemp's template
        guard let made = mkdtemp(&template) else { throw .setup("cannot make a temporary folder: \(String(cString: strerror(errno)))") }
        let work = String(cString: made)
        chmod(work, 0o711)  // host processes run as uids of their own and pass through to their data folders
        defer { _ = Glibc.system("rm -rf '\(work)'") }
        mkdir(work + "/plugins", 0o755)
        // Each runtime its own apps' data folders, as two deckds must have: the inline one runs beside.
        let folders: JSONValue = .array(media.map { .string($0) })
        for (config, data) in [("deck.json", "data"), ("inline.json", "inline-data")] {
            guard let file = fopen("\(work)/\(config)", "w") else { throw .setup("cannot write \(work)/\(config)") }
            fputs(JSONValue.object(["dataDirectory": .string("\(work)/\(data)"), "isolation": ["mediaFolders": folders]]).encoded(), file)
            fclose(file)
        }
        let output = work + "/out.opus", log = work + "/deckd.log"
        let process = try Spawned(deckd, ["--config", work + "/deck.json", "--plugins", work + "/plugins", "--state", "none",
                                          "--sink", "file:\(output)", "--socket", work + "/deck.sock", "--insecure-plugins"], log: log)
        defer { process.stop() }
        guard let runtime = RuntimeConnection(socket: work + "/deck.sock", of: process, seconds: 10) else {
            throw .setup(process.failure("did not open its socket", log: log))
        }
        let launched = exercise(runtime, output: output, work: work)
        let lines = Spawned.text(log).split(separator: "\n")
        if !process.isRunning { report("lifecycle.survives", "deckd itself ended during the run: \(lines.suffix(3).joined(separator: " | "))") }
        // "TIME LEVEL SUBSYSTEM: message": the runtime's lines about the plugin, not the plugin's own (its subsystem is its id).
        var seen = Set<String>()
        for line in lines where line.contains(id) {
            let words = line.split(separator: " ", maxSplits: 3)
            if words.count == 4, words[3].contains("from a thread other than the loop thread") {
                let text = String(words[3].drop { $0 != " " }.dropFirst())
                if seen.insert(text.filter { !$0.isNumber }).inserted { report("threads.host-calls", text) }
                continue
            }
            // Its host's own word, on the plugin's lines: processes destroy left running.
            if words.count == 4, words[2] == "\(id):", words[3].hasPrefix("destroy left ") {
                if seen.insert(String(words[3])).inserted { report("lifecycle.leftovers", String(words[3])) }
                continue
            }
            guard words.count == 4, words[1] == "warning" || words[1] == "error", words[2] != "\(id):" else { continue }
            let text = "\(words[1]) \(words[2]) \(words[3])"
            guard seen.insert(String(text.filter { !$0.isNumber })).inserted else { continue }
            if text.contains("crashed") || text.contains("hung") || text.contains("stopped answering") {
                report("lifecycle.survives", text)
            } else if let spent = DynamicRun.loopMilliseconds(in: text) {
                report(spent >= DynamicRun.slowCallMilliseconds ? "calls.slow" : "calls.time", text)
            } else {
                report("runtime.warnings", text)
            }
        }
        process.stop()  // before the freewheel run, which shares its data folders
        if let launched, wants("render.freewheel") { judgeFreewheel(work: work, output: output, since: launched) }
    }

    /// A call held the loop this long: slow whatever the machine's load. Under it, a call's time
    /// counts the host process's round trips and the waits for a CPU: told, not judged.
    static let slowCallMilliseconds = 1_000

    /// The milliseconds of a runtime warning about a call holding the loop ("took N ms on the loop
    /// thread", "has not returned after N ms"), or nil for any other warning.
    static func loopMilliseconds(in text: String) -> Int? {
        let words = text.split(separator: " ")
        for index in words.indices.dropFirst().dropLast() where words[index + 1] == "ms" || words[index + 1].hasPrefix("ms;") {
            let took = words[index - 1] == "took" && text.contains(" on the loop thread")
            let waited = words[index - 1] == "after" && index >= 2 && words[index - 2] == "returned"
            if took || waited, let value = Int(words[index]) { return value }
        }
        return nil
    }

    /// Drives it as an HMI would; the output frame it was launched at when it played.
    private mutating func exercise(_ runtime: RuntimeConnection, output: String, work: String) -> Int? {
        do {
            _ = try runtime.call("apps.load", ["path": .string(bundle)])
        } catch {
            report("load.accepted", error.message, at: bundle)
            return nil
        }
        let offers = Set(app(runtime)?["offers"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        let repeats = ["lifecycle.repeat", "lifecycle.leftovers", "render.time", "render.deadline"].contains(where: wants)
        var playing = false, repeated = false, launched = 0
        if offers.contains("audio") {
            launched = frames(runtime)
            do {
                try launch(runtime)
                let heard = Monotonic.now + seconds
                // The inline lifecycles run in a runtime of their own while this one plays.
                if repeats { repeatLifecycle(work: work, plays: true) }
                repeated = repeats
                if heard > Monotonic.now { usleep(UInt32((heard - Monotonic.now) * 1_000_000)) }
                playing = judgePlayback(runtime, output: output, since: launched)
            } catch where error.message.contains("refused to play") && item == nil && !ended(runtime) {
                report("lifecycle.default-item", "\(error.message); give --item to check its playback")
            } catch {
                report("lifecycle.activate", "apps.launch: \(error.message)")
                return nil
            }
        }
        if repeats && !repeated { repeatLifecycle(work: work, plays: false) }
        // A phase runs only when a rule it judges is asked for (`--only`, `--skip`).
        if playing, wants("commands.answered") { judgeCommands(runtime) }
        // Each focus phase starts from playing: after one it failed, the next has nothing to judge.
        if playing, wants("focus.transient") { judgeTransientLoss(runtime) }
        if playing, wants("focus.duck"), plays(runtime) { judgeDuck(runtime) }
        if playing, wants("focus.loss"), plays(runtime) { judgeFocusLoss(runtime) }
        if wants("ui.limits") { judgeScreens(runtime) }
        if offers.contains("ui"), wants("ui.handlers") { judgeHandlers(runtime) }
        if offers.contains("ui"), wants("ui.images") { judgeImages(runtime) }
        if offers.contains("content"), wants("content.loads") { judgeContent(runtime) }
        if wants("lifecycle.restart") || wants("lifecycle.leftovers") { judgeRestart(runtime, played: playing) }
        if let app = self.app(runtime), ["crashed", "disabled", "hung"].contains(app["state"]?.stringValue ?? "") {
            report("lifecycle.survives", "it ended the run \(app["state"]?.stringValue ?? "")")
        }
        return playing ? launched : nil
    }

    private mutating func repeatLifecycle(work: String, plays: Bool) {
        var inline = InlineLifecycle(bundle: bundle, id: id, item: item, deckd: deckd, config: work + "/inline.json", work: work)
        inline.run(plays: plays)
        for (rule, reason) in inline.findings where wants(rule) { report(rule, reason) }
        guard let times = inline.renderTimes, let calls = times["calls"]?.intValue, calls > 0 else {
            // Asked for and not measured is said, not passed over in silence.
            let why = inline.findings.first?.reason ?? "it made no render call"
            for rule in ["render.time", "render.deadline"] where plays && wants(rule) { report(rule, "not judged: the inline runtime timed no render call (\(why))") }
            return
        }
        let (p50, p99, longest) = (times["p50"]?.doubleValue ?? 0, times["p99"]?.doubleValue ?? 0, times["max"]?.doubleValue ?? 0)
        let blocked = times["blocked"]?.intValue ?? 0
        let figures = "\(calls) render calls inline: p50 \(DynamicRun.ms(p50)), p99 \(DynamicRun.ms(p99)), max \(DynamicRun.ms(longest)) of a 20 ms frame"
        report("render.time", figures)
        // Wall time on a shared machine includes preemption; blocking and a heavy median do not come from it.
        if blocked > 0 || p50 > 2 {
            report("render.deadline", "\(figures); \(blocked) of them blocked (slept, waited on a lock or did I/O): every plugin's render "
                   + "shares the audio thread's 20 ms; never block in render and keep its median under 2 ms "
                   + "(do slow work on a thread of your own and render from a buffer)")
        }
    }

    static func ms(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100) ms"
    }

    /// Launches it with the item; an app may refuse, with its reason, while it gets ready (a
    /// library scanning): it is asked again for `seconds`.
    private func launch(_ runtime: RuntimeConnection) throws(RuntimeConnection.CallError) {
        let deadline = Monotonic.now + seconds
        while true {
            do {
                _ = try runtime.call("apps.launch", item.map { ["id": .string(id), "item": .string($0)] } ?? ["id": .string(id)])
                return
            } catch where error.message.contains("refused to play") && Monotonic.now < deadline && !ended(runtime) {
                usleep(200_000)
            }
        }
    }

    /// Whether its process ended (a crash, or killed for not answering) or it hung.
    private func ended(_ runtime: RuntimeConnection) -> Bool {
        ["crashed", "disabled", "hung"].contains(app(runtime)?["state"]?.stringValue ?? "")
    }

    private func frames(_ runtime: RuntimeConnection) -> Int {
        Int((try? runtime.call("runtime.info"))?["output"]?["frames"]?.intValue ?? 0)
    }

    /// Its row once the mix has taken `seconds` of frames from it (20 ms each), waiting up to twice
    /// `seconds` more: its counters then judge that much audio, however late a loaded machine
    /// started it. Not waited for: an app whose stream is closed, or paused (no frame taken for a second).
    private func appAfterItsFrames(_ runtime: RuntimeConnection) -> JSONValue? {
        let wanted = Int64(seconds * 50), deadline = Monotonic.now + 2 * seconds
        var last: Int64 = -1, grewAt = Monotonic.now
        while true {
            guard let app = app(runtime) else { return nil }
            let taken = DynamicRun.count(app, "renderedFrames") + DynamicRun.count(app, "underrunFrames")
            if taken != last { (last, grewAt) = (taken, Monotonic.now) }
            let paused = taken > 0 && Monotonic.now - grewAt >= 1
            if taken >= wanted || app["streaming"]?.boolValue != true || paused || Monotonic.now >= deadline || ended(runtime) { return app }
            usleep(100_000)
        }
    }

    /// One of its frame counters, bounded (2^32: over two years of frames) so sums cannot overflow; 0 when absent.
    static func count(_ app: JSONValue, _ counter: String) -> Int64 { min(max(0, app[counter]?.intValue ?? 0), 1 << 32) }

    func app(_ runtime: RuntimeConnection) -> JSONValue? {
        (try? runtime.call("apps.list"))?["apps"]?.arrayValue?.first { $0["id"]?.stringValue == id }
    }

    /// Whether it plays (focus, an open stream, now playing saying so); its counters and what is heard.
    private mutating func judgePlayback(_ runtime: RuntimeConnection, output: String, since frame: Int) -> Bool {
        guard let app = appAfterItsFrames(runtime) else {
            report("lifecycle.survives", "it is gone from apps.list after its launch")
            return false
        }
        let underruns = DynamicRun.count(app, "underrunFrames"), taken = DynamicRun.count(app, "renderedFrames") + underruns
        for (counter, rule, what) in [("invalidFrames", "render.invalid", "NaN or infinity (silenced)"),
                                      ("subnormalFrames", "render.denormal", "denormal (subnormal) samples: flush them to zero"),
                                      ("clippedFrames", "render.clipping", "samples beyond ±1.0")] {
            let count = DynamicRun.count(app, counter)
            if count > 0 { report(rule, "\(count) of its \(taken) frames with \(what)") }
        }
        // Frames its host process delivered too late are underruns to the mix, but whether the render
        // or a busy machine made them late, the inline timing (render.deadline) judges.
        let late = min(DynamicRun.count(app, "lateFrames"), underruns)
        let short = underruns - late
        if short > 0 { report("render.underrun", "\(short) of its \(taken) frames it did not fill") }
        if late > 0 {
            report("render.late", "\(late) of its \(taken) frames its host process delivered after the mix's deadline, each heard as a "
                   + "fade to silence; with fast render calls (render.time) the machine was too busy to run it in time")
        }
        let session = try? runtime.call("session.get")
        let holds = session?["holders"]?.arrayValue?.contains { $0["owner"]?.stringValue == id } ?? false
        let streaming = app["streaming"]?.boolValue ?? false
        let nowPlaying = try? runtime.call("nowPlaying.get")
        let owns = nowPlaying?["owner"]?.stringValue == id
        // Playing at rate 0 is buffering: it says it is not advancing.
        let says = owns && nowPlaying?["playbackState"]?.stringValue == "playing" && (nowPlaying?["rate"]?.doubleValue ?? 1) > 0
        if holds, streaming, says, let peak = OutputLevel.peak(of: output, from: frame), peak < 0.001 {
            report("render.silent", "it holds focus, its stream is open and now playing says playing, but the output after its launch "
                   + "peaks at \(peak) (under −60 dBFS)")
        }
        let music = session?["holders"]?.arrayValue?.contains { $0["owner"]?.stringValue == id && $0["context"]?.stringValue == "music" } ?? false
        if music, streaming, !owns || (nowPlaying?["title"]?.stringValue ?? "").isEmpty {
            report("nowplaying.published", "it plays music but \(owns ? "publishes no title" : "does not own now playing (it never published it)")")
        }
        return holds && streaming
    }

    /// Pause and play, when it enabled them, are answered with success.
    private mutating func judgeCommands(_ runtime: RuntimeConnection) {
        let enabled = Set(((try? runtime.call("nowPlaying.get"))?["commands"]?.arrayValue ?? []).compactMap(\.stringValue))
        for command in ["pause", "play"] where enabled.contains(command) {
            do {
                let answer = try runtime.call("player.\(command)")
                if answer["result"]?.stringValue != "success" { report("commands.answered", "\(command) answered \(answer.encoded())") }
            } catch {
                report("commands.answered", "\(command): \(error.message)")
            }
            usleep(300_000)
        }
    }

    /// Unloaded (deactivate, destroy: its host says what it left running) and loaded again, it plays again.
    private mutating func judgeRestart(_ runtime: RuntimeConnection, played: Bool) {
        do {
            _ = try runtime.call("apps.unload", ["id": .string(id)])
            _ = try runtime.call("apps.load", ["path": .string(bundle)])
            if played { try launch(runtime) }
        } catch {
            report("lifecycle.restart", error.message)
            return
        }
        usleep(1_000_000)
        if played, app(runtime)?["streaming"]?.boolValue != true { report("lifecycle.restart", "loaded again and launched, it does not play") }
    }
}

/// What stops a check from running at all (not a finding about the plugin).
enum CheckError: Error, CustomStringConvertible {
    case setup(String)
    case usage(String)

    var description: String {
        switch self {
        case .setup(let reason), .usage(let reason): reason
        }
    }
}
