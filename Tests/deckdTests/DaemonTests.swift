import DeckBase
import DeckTestSupport
import Foundation
import Testing

/// `deckd` as an integrator runs it: flags, config, plugins, and a clean exit on SIGTERM/SIGINT.
@Suite struct DaemonTests {
    let deckd = Paths.binDir + "/deckd"
    let firstParty = Paths.corePlugins
    let examples = Paths.repoRoot + "/examples/plugin-c/build"

    @Test func helpAndVersionExitZeroUnlessTheyCannotBeWritten() throws {
        let help = try runProgram(deckd, ["--help"])
        #expect(help.status == 0)
        #expect(help.output.hasPrefix("usage: deckd [--config FILE] [--plugins DIR]..."))
        let version = try runProgram(deckd, ["--version"])
        #expect(version.status == 0)
        #expect(version.output == "deckd 0.1.0 (plugin ABI 1.6)\n")
        // Written to a full disk, they are lost, and the exit status says so (as deckctl's and deck-bench's).
        for tool in [deckd, Paths.binDir + "/deck-bench"] {
            let lost = try runProgram("/bin/sh", ["-c", "exec \"$0\" --help > /dev/full", tool])
            #expect(lost.status == 1 && lost.output.hasSuffix(": cannot write the output: No space left on device\n"), "\(tool): \(lost.output)")
        }
    }

    @Test(arguments: [
        (["--bogus"], "deckd: unknown option --bogus"),
        (["stray"], "deckd: unexpected argument 'stray'"),
        (["--plugins"], "deckd: --plugins needs a value"),
        (["--socket", ""], "deckd: --socket needs a value, not an empty one"),
        (["--state="], "deckd: --state needs a value, not an empty one"),
        (["--output-dir", ""], "deckd: --output-dir needs a value, not an empty one"),
        (["--log-level", "loud"], "deckd: --log-level must be error, warning, info or debug, not 'loud'"),
        (["--insecure-plugins=yes"], "deckd: --insecure-plugins takes no value"),
        (["--duration", "0x10"], "deckd: --duration must be a number of seconds above 0 and at most 1e9, not '0x10'"),
        (["--policy", "/nonexistent/policy.json"], "deckd: cannot read /nonexistent/policy.json: No such file or directory"),
    ])
    func usageErrorsExitTwoWithAOneLineHint(arguments: [String], message: String) throws {
        let result = try runProgram(deckd, arguments)
        #expect(result.status == 2)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.first == message)
        if !message.contains("cannot read") { #expect(lines.last == "Try 'deckd --help' for more information.") }
    }

    @Test func aBrokenConfigFileIsAUsageErrorNamingFileAndPosition() throws {
        let dir = TemporaryDirectory()
        try "{\n  \"logLevel\": \"info\",,\n}".write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let result = try runProgram(deckd, ["--config", dir.path + "/deck.json"])
        #expect(result.status == 2)
        #expect(result.output.hasPrefix("deckd: \(dir.path)/deck.json is not valid JSON: line 2, column 22"))

        try #"{"plugin": ["x"]}"#.write(toFile: dir.path + "/typo.json", atomically: true, encoding: .utf8)
        let typo = try runProgram(deckd, ["--config", dir.path + "/typo.json"])
        #expect(typo.status == 2)
        #expect(typo.output.contains("unknown key \"plugin\""))
        #expect(typo.output.hasSuffix("Every key, its range and unit: docs/integrator-guide.md; flags: 'deckd --help'.\n"))
    }

    /// `--check-config` reads what a start reads and sums it up, or names what is wrong, and exits
    /// having loaded, opened and made nothing: no state folder, no socket, no file sink.
    @Test func checkConfigSumsUpAValidConfigurationOrNamesWhatIsWrongAndMakesNothing() throws {
        let dir = TemporaryDirectory()
        try #"{"sinks": ["file:out.opus?name=Cabin"], "zones": [{"id": "front", "sinks": ["Cabin"]}, {"id": "rear", "sinks": ["Rear"]}]}"#
            .write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let arguments = ["--check-config", "--config", dir.path + "/deck.json", "--socket", dir.path + "/d.sock", "--plugins", dir.path + "/plugins"]
        let valid = try runProgram(deckd, arguments, environment: ["XDG_STATE_HOME": dir.path + "/state"])
        #expect(valid.status == 0 && valid.output.hasPrefix("deckd: the configuration is valid (\(dir.path)/deck.json):\n"), "\(valid.output)")
        #expect(valid.output.contains("  sinks: file:\(dir.path)/out.opus?name=Cabin\n") && valid.output.contains("  zones: front, rear\n"), "\(valid.output)")
        #expect(valid.output.contains("  note: zone rear names the sink Rear, which no sink here is called"), "as a start would warn: \(valid.output)")
        #expect(valid.output.contains("  plugins from \(dir.path)/plugins (not there)\n"), "\(valid.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["deck.json"], "nothing made")
        try #"{"session": {"duckDb": 5}}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let invalid = try runProgram(deckd, arguments)
        #expect(invalid.status == 2 && invalid.output.hasPrefix("deckd: \(dir.path)/deck.json: session.duckDb must be -96 to 0 dB"), "\(invalid.output)")
    }

    @Test func loadsPluginsRunsUntilSIGTERMAndShutsDownInReverseOrder() throws {
        let daemon = try DeckdProcess(["--plugins", firstParty, "--plugins", examples])
        #expect(daemon.waitForLog("deckd: ready: 3 plugin(s) loaded, 0 refused"))
        #expect(daemon.waitForLog("org.example.hello: callback delivered on the loop thread"))
        #expect(daemon.stop(signal: SIGTERM) == 0)
        let log = daemon.log
        #expect(log.contains("loaded org.deck.tone 0.3.0 from \(firstParty)/Tone.deckplugin (Swift; entitlements: audio)"))
        #expect(log.contains("loaded org.example.hello 1.0.0 from \(examples)/Hello.deckplugin (C; entitlements: audio)"))
        let order = ["SIGTERM received", "org.example.hello: deactivated", "unloaded org.example.hello",
                     "unloaded org.deck.tone", "deckd: stopped"].map { log.range(of: $0)?.lowerBound }
        #expect(order.allSatisfy { $0 != nil })
        #expect(order.compactMap { $0 } == order.compactMap { $0 }.sorted())
    }

    /// An idle deckd wakes no thread: the one that waits for SIGTERM and times loop calls sleeps
    /// while there is nothing to time, and the loop, with no plugin, stream or client, sleeps
    /// too (plugins' orphans are swept when a child of deckd ends, not on a timer).
    @Test func anIdleDeckdWakesNoThreadUntilASignal() throws {
        let daemon = try DeckdProcess(["--plugins", TemporaryDirectory().path])
        #expect(daemon.waitForLog("ready"))
        let pid = daemon.process.processIdentifier
        usleep(200_000)  // what ready set off has run
        let before = try ProcessThreads.wakeUps(of: pid)
        #expect(before.keys.contains { $0.hasPrefix("deck-guard ") }, "the guard thread: \(before)")
        usleep(2_500_000)
        let woken = ProcessThreads.woken(from: before, to: try ProcessThreads.wakeUps(of: pid))
        #expect(woken.isEmpty, "woke in 2.5 s: \(woken)")
        #expect(daemon.stop(signal: SIGTERM) == 0)
        #expect(daemon.log.contains("SIGTERM received, shutting down"))
    }

    /// With the first-party apps loaded and nothing playing, each host's loop wakes for its
    /// heartbeat alone, and deckd for the heartbeats it hears: the players' decode threads wait for
    /// a request without a timeout, the Radio's station list is watched through inotify, not read
    /// again every half second, and each heartbeat moves on deckd's look at that host's silence.
    @Test func idleFirstPartyAppsWakeOnlyTheirHostsLoops() throws {
        let daemon = try DeckdProcess(["--plugins", Paths.binDir + "/plugins", "--isolation", "process", "--state", "none"])
        #expect(daemon.waitForLog("deckd: ready"))
        let apps = try daemon.apps()
        let hosts: [(id: String, pid: pid_t)] = apps.compactMap { app in
            guard let id = app["id"]?.stringValue, let pid = app["pid"]?.intValue else { return nil }
            return (id, pid_t(pid))
        }
        #expect(Set(hosts.map { $0.id }).isSuperset(of: ["org.deck.radio", "org.deck.library"]), "\(apps)")
        usleep(1_000_000)  // what loading set off (the scan, the station list) has run
        let before = try hosts.map { try ProcessThreads.wakeUps(of: $0.pid) }, deckdBefore = try ProcessThreads.wakeUps(of: daemon.process.processIdentifier)
        usleep(2_500_000)
        // deckd wakes for each host's heartbeat (5 in 2.5 s) and for nothing else while they beat.
        let deckdWoken = ProcessThreads.woken(from: deckdBefore, to: try ProcessThreads.wakeUps(of: daemon.process.processIdentifier))
        #expect(deckdWoken.values.reduce(0, +) <= 5 * hosts.count + 1, "deckd woke more than for \(hosts.count) hosts' heartbeats: \(deckdWoken)")
        for (host, threads) in zip(hosts, before) {
            let woken = ProcessThreads.woken(from: threads, to: try ProcessThreads.wakeUps(of: host.pid))
            #expect(woken.keys.allSatisfy { $0.hasSuffix(" (\(host.pid))") }, "threads of \(host.id) other than its loop woke: \(woken)")
            #expect(woken.values.reduce(0, +) <= 8, "\(host.id)'s loop woke more than for its heartbeats: \(woken)")
        }
        #expect(daemon.stop() == 0)
    }

    @Test func sigintStopsItCleanlyToo() throws {
        let daemon = try DeckdProcess(["--plugins", examples])
        #expect(daemon.waitForLog("ready"))
        #expect(daemon.stop(signal: SIGINT) == 0)
        #expect(daemon.log.contains("SIGINT received, shutting down"))
    }

    /// At shutdown the apps' screens go before the apps: what they show as they stop is refused as
    /// "not now", in words that say why, and is no warning.
    @Test func appsStoppingAtShutdownAreToldTheirScreenIsGoneAndWarnOfNothing() throws {
        let dir = TemporaryDirectory()
        let result = try runProgram(Paths.binDir + "/deckd", ["--state", "none", "--freewheel", "--duration", "0.5", "--log-level", "debug",
                                                              "--play", "org.deck.tone:sine-440", "--sink", "file:\(dir.path)/out.opus",
                                                              "--socket", dir.path + "/d.sock"], timeout: 30)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("org.deck.radio: host call refused: update: org.deck.radio has no screen: it is being unloaded"),
                "\(result.output)")
        #expect(!result.output.contains("the screen was refused") && !result.output.contains("is active; describe templates"),
                "\(result.output)")
    }

    @Test func withNoArgumentsItLoadsTheFirstPartyPluginsNextToIt() throws {
        let daemon = try DeckdProcess([])
        #expect(daemon.waitForLog("ready"))
        #expect(daemon.stop() == 0)
        #expect(daemon.log.contains("loaded org.deck.tone 0.3.0 from \(Paths.binDir)/plugins/Tone.deckplugin"))
    }

    @Test func aMediaFolderHoldingTheRuntimesFilesIsAConfigError() throws {
        let dir = TemporaryDirectory()
        try #"{"isolation": {"mediaFolders": ["\#(dir.path)"]}}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let result = try runProgram(deckd, ["--config", dir.path + "/deck.json", "--state", dir.path + "/state.json"])
        #expect(result.status == 2)
        #expect(result.output.hasPrefix("deckd: \(dir.path)/deck.json: the media folder \(dir.path) holds dataDirectory (\(dir.path)/apps): "
                                        + "every plugin granted media could read other apps' data folders"), "\(result.output)")
    }

    /// `--state /tmp` once set /tmp aside as a corrupt state file; an unusable state path once crashed deckd.
    @Test func aStatePathThatIsAFolderOrInAFolderOthersMayWriteStopsDeckdWithTheFix() throws {
        let dir = TemporaryDirectory()
        mkdir(dir.path + "/folder", 0o700)
        let folder = try runProgram(deckd, ["--state", dir.path + "/folder", "--socket", dir.path + "/d.sock", "--sink", "file:\(dir.path)/o.opus"])
        #expect(folder.status == 1)
        #expect(folder.output.contains("the state file \(dir.path)/folder is a folder, not a regular file; name a file for state.path"), "\(folder.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["folder"], "nothing set aside, nothing written")
        mkdir(dir.path + "/open", 0o777)
        chmod(dir.path + "/open", 0o777)
        let open = try runProgram(deckd, ["--state", dir.path + "/open/state.json", "--socket", dir.path + "/d.sock", "--sink", "file:\(dir.path)/o.opus"])
        #expect(open.status == 1)
        #expect(open.output.contains("the state folder \(dir.path)/open is writable by group or others (mode 777)"), "\(open.output)")
    }

    /// A config with `"sinks": []`: a render would make nothing anywhere and is refused; a daemon
    /// says its audio goes nowhere until a client adds a sink.
    @Test func withoutSinksARenderIsRefusedAndADaemonSaysSo() throws {
        let dir = TemporaryDirectory()
        try #"{"sinks": []}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let base = ["--config", dir.path + "/deck.json", "--plugins", Paths.corePlugins, "--socket", dir.path + "/d.sock", "--state", "none"]
        let render = try runProgram(deckd, base + ["--freewheel", "--duration", "1", "--play", "org.deck.tone"], timeout: 20)
        #expect(render.status == 2 && render.output.hasPrefix("deckd: --duration renders into the sinks, and there are none"), "\(render.output)")
        let daemon = try runProgram(deckd, base, timeout: 2)  // ended by the timeout
        #expect(daemon.output.contains("warning sinks: no sinks: the audio goes nowhere until a client adds one (sinks.add)"), "\(daemon.output)")
    }

    /// `--freewheel` is meant for a render of `--duration`; without one, deckd says it will render
    /// flat out until stopped.
    @Test func freewheelWithoutADurationIsWarnedOf() throws {
        let dir = TemporaryDirectory()
        let daemon = try runProgram(deckd, ["--plugins", Paths.corePlugins, "--socket", dir.path + "/d.sock", "--state", "none", "--freewheel",
                                            "--sink", "file:\(dir.path)/out.opus"], timeout: 2)  // ended by the timeout
        #expect(daemon.output.contains("warning audio: --freewheel without --duration: the output renders as fast as the machine allows, "
                                       + "keeping a core busy and the sinks filling, until deckd is stopped"), "\(daemon.output)")
        let render = try runProgram(deckd, ["--plugins", Paths.corePlugins, "--socket", dir.path + "/d.sock", "--state", "none", "--freewheel",
                                            "--duration", "0.1", "--play", "org.deck.tone", "--sink", "file:\(dir.path)/render.opus"], timeout: 20)
        #expect(render.status == 0 && !render.output.contains("--freewheel without --duration"), "\(render.output)")
    }

    /// A service user whose home does not exist (`nobody`'s /nonexistent) has no default state
    /// folder: deckd runs, and says the volumes and the last source are not kept.
    @Test func withoutADefaultStateFolderDeckdSaysNothingIsKept() throws {
        let deckd = try DeckdProcess(["--plugins", Paths.corePlugins], environment: ["XDG_STATE_HOME": "/proc/deck-state"])
        #expect(deckd.waitForLog("deckd: ready"), "\(deckd.log)")
        #expect(deckd.log.contains("warning state: no state is kept: cannot make /proc/deck-state (No such file or directory); the volumes "
                                   + "and the last source start afresh at each start (give --state FILE, or --state none to say so)"),
                "\(deckd.log)")
        #expect(deckd.stop() == 0)
        let told = try DeckdProcess(["--plugins", Paths.corePlugins, "--state", "none"], environment: ["XDG_STATE_HOME": "/proc/deck-state"])
        #expect(told.waitForLog("deckd: ready"), "\(told.log)")
        #expect(!told.log.contains("no state is kept"), "--state none says so: \(told.log)")
        #expect(told.stop() == 0)
    }

    /// Two deckds given one state file would both write it and hand the apps' data folders back and
    /// forth: the second is refused while the first runs, and a first that was killed lets go.
    @Test func aStateFileKeptByAnotherDeckdIsRefused() throws {
        let dir = TemporaryDirectory()
        let state = dir.path + "/state.json"
        let first = try DeckdProcess(["--plugins", Paths.corePlugins, "--state", state])
        #expect(first.waitForLog("deckd: ready"), "\(first.log)")
        let second = try runProgram(deckd, ["--plugins", Paths.corePlugins, "--state", state, "--socket", dir.path + "/second.sock",
                                            "--sink", "file:\(dir.path)/second.opus"], timeout: 20)
        #expect(second.status == 1)
        #expect(second.output.contains("the state file \(state) is kept by another runtime (process \(first.process.processIdentifier)); "
                                       + "give each deckd a state file of its own (--state FILE, or --state none)"), "\(second.output)")
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let third = try DeckdProcess(["--plugins", Paths.corePlugins, "--state", state])
        #expect(third.waitForLog("deckd: ready"), "\(third.log)")
        #expect(third.stop() == 0)
    }

    /// So would two given state files of their own and one `dataDirectory` (a config file they share).
    @Test func appsDataFoldersKeptByAnotherDeckdAreRefused() throws {
        let dir = TemporaryDirectory()
        try #"{"dataDirectory": "apps"}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let first = try DeckdProcess(["--plugins", Paths.corePlugins, "--config", dir.path + "/deck.json", "--state", dir.path + "/one.json"])
        #expect(first.waitForLog("deckd: ready"), "\(first.log)")
        // However the folder is written: here with a slash after it.
        try #"{"dataDirectory": "apps/"}"#.write(toFile: dir.path + "/other.json", atomically: true, encoding: .utf8)
        let second = try runProgram(deckd, ["--plugins", Paths.corePlugins, "--config", dir.path + "/other.json", "--state", dir.path + "/two.json",
                                            "--socket", dir.path + "/second.sock", "--sink", "file:\(dir.path)/second.opus"], timeout: 20)
        #expect(second.status == 1)
        #expect(second.output.contains("the apps' data folders \(dir.path)/apps (dataDirectory) are kept by another runtime "
                                       + "(process \(first.process.processIdentifier)); give each deckd a dataDirectory of its own"), "\(second.output)")
        #expect(first.stop() == 0)
        let third = try DeckdProcess(["--plugins", Paths.corePlugins, "--config", dir.path + "/deck.json", "--state", dir.path + "/two.json"])
        #expect(third.waitForLog("deckd: ready"), "\(third.log)")
        #expect(third.stop() == 0)
    }

    @Test func aConfigFileSetsDirectoriesPolicyAndLevelWithRelativePaths() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/plugins", withDestinationPath: examples)
        try #"{"default": [], "plugins": {"org.example.helo": ["audio"]}, "isolation": {"plugins": {"org.example.hello": "process"}}}"#
            .write(toFile: dir.path + "/policy.json", atomically: true, encoding: .utf8)
        try #"{"plugins": ["plugins"], "policy": "policy.json", "logLevel": "debug", "appSettings": {"org.example.hallo": {}}}"#
            .write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let daemon = try DeckdProcess(["--config", dir.path + "/deck.json"])
        #expect(daemon.waitForLog("ready"))
        #expect(daemon.stop() == 0)
        let log = daemon.log
        #expect(log.contains("entitlement policy from \(dir.path)/policy.json"))
        #expect(log.contains("org.example.hello: entitlements not granted by policy, loading without them: audio"))
        #expect(log.contains("(C; entitlements: none)"))
        // A mistyped id in the policy is pointed out; one that names a loaded plugin is not.
        #expect(log.contains("the policy names org.example.helo, which no plugin loaded at start has: is it mistyped? Loaded: org.example.hello"), "\(log)")
        #expect(!log.contains("the policy names org.example.hello,"), "\(log)")
        #expect(log.contains("appSettings names org.example.hallo, which no plugin loaded at start has"), "\(log)")
        #expect(log.contains("debug org.example.hello: worker thread asking for a callback"))
    }

    @Test func flagsOverrideTheConfigFile() throws {
        let dir = TemporaryDirectory()
        try #"{"plugins": ["/nonexistent"], "logLevel": "debug"}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let daemon = try DeckdProcess(["--config", dir.path + "/deck.json", "--plugins", examples, "--log-level", "warning"])
        #expect(daemon.waitForLog("hello", seconds: 2) == false)  // info lines are filtered out
        #expect(daemon.stop() == 0)
        #expect(!daemon.log.contains("/nonexistent"))
    }

    @Test func refusedBundlesAreReportedAndTheRestRun() throws {
        let dir = TemporaryDirectory()
        let bundle = dir.path + "/Broken.deckplugin"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        try #"{"id": "org.example.broken", "name": "Broken", "version": "1.0.0", "abi": 1, "library": "libbroken.so", "entitlements": ["warp"]}"#
            .write(toFile: bundle + "/manifest.json", atomically: true, encoding: .utf8)
        let daemon = try DeckdProcess(["--plugins", dir.path, "--plugins", examples])
        #expect(daemon.waitForLog("ready: 1 plugin(s) loaded, 1 refused"))
        #expect(daemon.stop() == 0)
        #expect(daemon.log.contains("error plugins: \(bundle): unknown entitlement \"warp\""))
    }
}

extension DaemonTests {
    @Test func sigtermWhileStreamingEndsTheFileCleanly() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/live.opus"
        let daemon = try DeckdProcess(["--plugins", firstParty, "--play", "org.deck.tone:sine-440", "--sink", "file:\(path)"])
        #expect(daemon.waitForLog("output started"))
        try daemon.waitForFrames(35)
        #expect(daemon.stop(signal: SIGTERM) == 0)
        #expect(!daemon.log.contains("--duration reached"))
        let info = try AudioAnalysis.opusinfo(path)
        #expect(info.warnings.isEmpty, "\(info.output)")
        #expect(info.output.contains("Logical stream 1 ended"))
        #expect(try AudioAnalysis.decodeWithOpusdec(path) > 24_000)
    }
}

extension DaemonTests {
    /// `--config deck.json` with `"dataDirectory": "data"`, or `--state st/state.json`, once made
    /// the apps' folders at the top of the file system (`/data`, `/st/apps`): the folders were made
    /// part by part from `/`. Relative paths now mean the working directory, for deckd and its hosts.
    @Test func relativePathsMeanTheWorkingDirectoryNotTheRoot() throws {
        let dir = TemporaryDirectory()
        let data = "data-" + UUID().uuidString
        try #"{"dataDirectory": "\#(data)"}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let inFolder = ["/usr/bin/env", "-C", dir.path]
        func dataFolder(_ deckd: DeckdProcess) throws -> String? {
            let list = try JSONSerialization.jsonObject(with: Data(try deckd.deckctl(["--json", "apps"]).output.utf8)) as? [String: Any]
            let apps = list?["apps"] as? [[String: Any]] ?? []
            return apps.first { $0["id"] as? String == "org.deck.tone" }?["dataFolder"] as? String
        }
        let configured = try DeckdProcess(["--config", "deck.json", "--plugins", firstParty, "--state", "none"], launcher: inFolder)
        #expect(configured.waitForLog("deckd: ready"))
        #expect(try dataFolder(configured) == dir.path + "/" + data + "/org.deck.tone")
        #expect(configured.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: "/" + data))
        try FileManager.default.createDirectory(atPath: dir.path + "/st", withIntermediateDirectories: true)
        chmod(dir.path + "/st", 0o700)
        let stateful = try DeckdProcess(["--plugins", firstParty, "--state", "st/state.json"], launcher: inFolder)
        #expect(stateful.waitForLog("deckd: ready"))
        #expect(try dataFolder(stateful) == dir.path + "/st/apps/org.deck.tone")
        #expect(stateful.stop() == 0)
    }
}
