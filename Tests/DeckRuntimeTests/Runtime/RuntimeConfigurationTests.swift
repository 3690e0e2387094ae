import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime

@Suite struct RuntimeConfigurationTests {
    let dir = TemporaryDirectory()

    func apply(_ json: String) throws(ConfigurationError) -> RuntimeConfiguration {
        try! json.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        var configuration = RuntimeConfiguration()
        try configuration.apply(configFile: dir.path + "/deck.json")
        return configuration
    }

    @Test func readsEveryKeyWithPathsRelativeToTheFile() throws {
        try #"{"default": ["audio"]}"#.write(toFile: dir.path + "/policy.json", atomically: true, encoding: .utf8)
        let configuration = try apply("""
            {"plugins": ["plugins", "/abs"], "policy": "policy.json", "logLevel": "debug", "insecurePlugins": true,
             "sinks": ["file:out.opus", "http://127.0.0.1:9000/s.opus", "FILE:Cabin.opus", "file:-?name=Out", "file:-x.opus"],
             "encoder": {"bitrate": 96000, "complexity": 7, "frameMs": 40, "application": "voip", "fec": true,
                         "packetLoss": 10, "dtx": true},
             "http": {"maxQueuedBytes": 40960, "maxHeadBytes": 1024, "headTimeoutMs": 250, "maxClients": 3, "allowRemoteListeners": true},
             "files": {"directory": "recordings", "overwrite": true},
             "control": {"maxBatch": 10, "maxUnauthenticated": 2, "idleTimeoutMs": 60000},
             "session": {"duckDb": -20, "idleTimeoutMs": 2000, "ducking": {"navigation": ["music"], "music": ["notification"]}},
             "audio": {"lateBoundMs": 80}, "isolation": {"processLimit": 64}}
            """)
        #expect(configuration.pluginDirectories == [dir.path + "/plugins", "/abs"])
        #expect(configuration.policyPath == dir.path + "/policy.json")
        #expect(configuration.policy.defaultGrants == [.audio])
        #expect(configuration.logLevel == .debug)
        #expect(configuration.allowInsecurePlugins)
        #expect(configuration.sinks == ["file:\(dir.path)/out.opus", "http://127.0.0.1:9000/s.opus", "file:\(dir.path)/Cabin.opus",
                                        "file:-?name=Out", "file:\(dir.path)/-x.opus"], "file:- is standard output")
        let encoder = configuration.audio.encoder
        #expect((encoder.bitrate, encoder.complexity, encoder.application) == (96_000, 7, .voip))
        #expect(encoder.inbandFEC && encoder.dtx && encoder.expectedPacketLoss == 10)
        #expect(configuration.audio.frameSize.samples == 1920)
        #expect(configuration.httpLimits.maxQueuedBytes == 40960)
        #expect(configuration.httpLimits.maxClients == 3)
        #expect(configuration.httpLimits.allowRemoteListeners)
        #expect(configuration.files == { var files = FileOutputPolicy(); files.directory = dir.path + "/recordings"; files.overwrite = true; return files }())
        #expect((configuration.control.maxBatch, configuration.control.maxUnauthenticated, configuration.control.idleTimeoutMs) == (10, 2, 60_000))
        #expect(configuration.session.duckDecibels == -20)
        #expect(configuration.session.idleTimeoutMilliseconds == 2_000)
        #expect(configuration.session.ducking[.navigation] == [.music])
        #expect(configuration.session.ducking[.music] == [.notification])
        #expect(configuration.session.ducking[.call] == DuckingTable.automotive[.call])  // untouched rows stay
        #expect(configuration.httpLimits.maxHeadBytes == 1024)
        #expect(configuration.httpLimits.headTimeoutMilliseconds == 250)
        #expect(configuration.audio.lateBoundNanoseconds == 80_000_000)
        #expect(configuration.isolation.processLimit == 64)
        #expect(try apply(#"{"isolation": {"processLimit": 0}}"#).isolation.processLimit == 0, "0: no limit")
    }

    @Test(arguments: [
        (#"{"encoder": {"bitrate": 1}}"#, "encoder.bitrate is 1, out of range (6000 to 510000 bits/s)"),
        (#"{"encoder": {"complexity": 11}}"#, "encoder.complexity is 11, out of range (0 to 10)"),
        (#"{"encoder": {"complexity": 2.5}}"#, "encoder.complexity must be a whole number from 0 to 10, not 2.5"),
        (#"{"encoder": {"application": "music"}}"#, "encoder.application: application \"music\" is not one of audio, lowdelay, voip"),
        (#"{"encoder": {"frameMs": 30}}"#, "encoder.frameMs: frame size 30.0 ms is not an Opus frame size (2.5, 5, 10, 20, 40 or 60)"),
        (#"{"encoder": {"fec": "yes"}}"#, "encoder.fec must be true or false"),
        (#"{"encoder": {"vbr": true}}"#, "unknown key \"encoder.vbr\" (known: bitrate, complexity, frameMs, application, fec, packetLoss, dtx)"),
        (#"{"http": {"maxHeadBytes": 0}}"#, "http.maxHeadBytes is 0, out of range (256 to 65536 bytes)"),
        (#"{"http": {"maxQueuedBytes": 9223372036854775807}}"#, "http.maxQueuedBytes is 9223372036854775807, out of range (16384 to 67108864 bytes)"),
        // An empty path is a slip, never the config's own folder.
        (#"{"plugins": ["plugins", ""]}"#, "\"plugins\" must be an array of directory paths"),
        (#"{"policy": ""}"#, "\"policy\" must be a file path"),
        (#"{"sinks": "file:x.opus"}"#, "\"sinks\" must be an array of sink URIs"),
        (#"{"sinks": ["ftp://x"]}"#, "sinks: invalid sink ftp://x: expected file:PATH, http://HOST:PORT/PATH or rtp://HOST:PORT?pt=96&sdp=PATH"),
        (#"{"sinks": ["http://127.0.0.1:1/x?kind=car"]}"#, "sinks: invalid sink http://127.0.0.1:1/x?kind=car: kind= must be one of speakers, headphones, bluetooth, network, recording"),
        (#"{"pins": {"navigation": "Cabin", "systemSound": "Rear"}}"#,
         "pins name 2 sinks (Cabin, Rear); every pinned context must name the same sink"),
        (#"{"pins": {"satnav": "Cabin"}}"#, "pins: unknown context \"satnav\" (known: "
            + AudioContext.allCases.map(\.rawValue).joined(separator: ", ") + ")"),
        (#"{"pins": {"navigation": ""}}"#, "pins.navigation must be a sink name"),
        (#"{"audio": {"lateBoundMs": -1}}"#, "audio.lateBoundMs is -1, out of range (1 to 10000 ms)"),
        (#"{"control": {"maxBatch": 0}}"#, "control.maxBatch is 0, out of range (1 to 10000 requests)"),
        (#"{"control": {"maxSockets": 3}}"#, "unknown key \"control.maxSockets\" (known: maxMessageBytes, maxDepth, maxBatch, maxResponseBytes, "
            + "maxConnections, maxTCPConnections, maxUnauthenticated, loginTimeoutMs, idleTimeoutMs, maxQueuedBytes, stallTimeoutMs, turnBudgetMs)"),
        (#"{"files": {"overwrite": 1}}"#, "files.overwrite must be true or false"),
        (#"{"isolation": {"callTimeoutMs": 10}}"#, "isolation.callTimeoutMs is 10, out of range (50 to 60000 ms)"),
        (#"{"isolation": {"aheadFrames": 0}}"#, "isolation.aheadFrames is 0, out of range (1 to 16 frames)"),
        (#"{"isolation": {"processLimit": 8}}"#, "isolation.processLimit is 8: 0 (no limit) or at least 32, since the host's own threads count"),
        (#"{"isolation": {"processLimit": 2000000}}"#, "isolation.processLimit is 2000000, out of range (0 to 1048576 processes)"),
        (#"{"isolation": {"seccomp": true}}"#, #"unknown key "isolation.seccomp" (known: mode, hostPath, callTimeoutMs, startTimeoutMs, heartbeatTimeoutMs, renderDeadlineMs, aheadFrames, memoryLimitMb, processLimit, maxMessageBytes, restartDelayMs, restartLimit, restartWindowS, uidBase, sandbox, zygote, mediaFolders)"#),
        (#"{"session": {"idleTimeoutMs": 0.5}}"#, "session.idleTimeoutMs must be a whole number of milliseconds, not 0.5"),
        (#"{"session": {"matrix": {"call": {"navigation": "maybe"}}}}"#, "session.matrix.call.navigation must be reject, exclusive or concurrent"),
        (#"{"session": {"ducking": {"navigation": "music"}}}"#, "session.ducking.navigation must be an array of contexts"),
        (#"{"session": {"volumeGroups": [{"name": "a", "contexts": ["music"]}, {"name": "b", "contexts": ["music"]}]}}"#,
         "session.volumeGroups[1]: music is in more than one volume group"),
        (#"{"session": {"volumeGroups": [{"name": "a", "contexts": [], "stepDb": 10}]}}"#, "session.volumeGroups[0].stepDb must be 0.1 to 6 dB"),
        (#"{"session": {"volumeGroups": [{"name": "a", "contexts": [], "stepDb": "3"}]}}"#, "session.volumeGroups[0].stepDb must be 0.1 to 6 dB"),
        (#"{"session": {"volumeGroups": [{"name": "a", "contexts": [], "maxIndex": "20"}]}}"#, "session.volumeGroups[0].maxIndex must be 1 to 100"),
        (#"{"session": {"volumeGroups": [{"name": "a", "contexts": [], "maxIndex": 20, "index": 2.5}]}}"#,
         "session.volumeGroups[0].index must be 0 to 20"),
        (#"{"session": {"volumeGroups": [{"name": "a", "contexts": [], "minIndex": null}]}}"#, "session.volumeGroups[0].minIndex must be 0 to 39"),
        (#"{"session": {"volumeGroups": [{"name": "\#(String(repeating: "g", count: 65))", "contexts": ["music"]}]}}"#,
         "session.volumeGroups[0].name must be 1 to 64 bytes, a name no other group has"),
    ])
    func badValuesNameTheKeyAndTheRange(json: String, message: String) {
        #expect(throws: ConfigurationError.invalid(dir.path + "/deck.json", message)) { try apply(json) }
    }

    @Test(arguments: [
        (#"{"isolation": {"mediaFolders": ["/media:usb"]}}"#, "isolation.mediaFolders must be an array of folder paths (without ':')"),
        (#"{"isolation": {"zygote": 1}}"#, "isolation.zygote must be true or false"),
        (#"{"dataDirectory": 7}"#, "\"dataDirectory\" must be a folder path"),
    ])
    func badSandboxValuesNameTheKey(json: String, message: String) {
        #expect(throws: ConfigurationError.invalid(dir.path + "/deck.json", message)) { try apply(json) }
    }

    @Test func volumeGroupsComeFromTheConfig() throws {
        let configuration = try apply(#"""
            {"session": {"volumeGroups": [{"name": "entertainment", "contexts": ["music", "announcement"], "minIndex": 5, "maxIndex": 20, "stepDb": 3, "index": 10},
                                          {"name": "chimes", "contexts": ["safety"], "protected": true, "index": 0}]}}
            """#)
        var groups = configuration.session.volumeGroups
        #expect(groups.groups.map(\.name) == ["entertainment", "chimes"])
        #expect(groups.group(named: "entertainment")?.decibels == -30)
        #expect(groups.group(named: "chimes")?.index == 1)  // protected: never silent
        #expect(throws: VolumeError.indexOutOfRange("entertainment", 4, 5, 20)) { try groups.set("entertainment", index: 4) }
        #expect(throws: VolumeError.cannotMute("chimes")) { try groups.mute("chimes", true) }
        #expect(groups.gain(for: .navigation) == 1)  // in no group: full level
        let fine = try apply(#"{"session": {"volumeGroups": [{"name": "media", "contexts": ["music"], "stepDb": 0.1, "index": 37}]}}"#)
        #expect(fine.session.volumeGroups.group(named: "media")?.decibels == -0.3, "as a person reads it, not -0.30000000000000004")
    }

    @Test func clientFileSinksAreConfinedToTheOutputFolder() throws {
        var files = FileOutputPolicy()
        #expect(throws: SinkError.cannotOpen("file:x.opus", "clients may write files (file sinks, SDP files) only inside an output folder; "
                                             + "the integrator sets files.directory (or --output-dir)")) {
            try files.confine("x.opus", uri: "file:x.opus")
        }
        let real = URL(fileURLWithPath: dir.path).resolvingSymlinksInPath().path
        try FileManager.default.createDirectory(atPath: dir.path + "/out/sub", withIntermediateDirectories: true)
        files.directory = dir.path + "/out"
        #expect(try files.confine("x.opus", uri: "") == real + "/out/x.opus")
        #expect(try files.confine(dir.path + "/out/sub/y.opus", uri: "") == real + "/out/sub/y.opus")
        for escape in ["../x.opus", dir.path + "/x.opus", dir.path + "/out/../x.opus", "/etc/passwd"] {
            #expect(throws: SinkError.self) { try files.confine(escape, uri: "file:" + escape) }
        }
        symlink(dir.path, dir.path + "/out/up")  // a link inside that leads out
        #expect(throws: SinkError.cannotOpen("file:up/x.opus", "up/x.opus is outside the output folder \(dir.path)/out")) {
            try files.confine("up/x.opus", uri: "file:up/x.opus")
        }
    }

    /// An output folder that is missing or a file is named as the fault, not a sink's own folder.
    @Test func anOutputFolderThatIsMissingOrAFileIsTheFaultNamed() throws {
        var files = FileOutputPolicy()
        #expect(files.directoryProblem == nil, "none set: clients may not write files, which is no fault")
        files.directory = dir.path
        #expect(files.directoryProblem == nil)
        files.directory = dir.path + "/missing"
        let missing = "the output folder \(dir.path)/missing (files.directory) cannot be used: No such file or directory"
        #expect(files.directoryProblem == missing)
        #expect(throws: SinkError.cannotOpen("file:sub/x.opus", missing)) { try files.confine("sub/x.opus", uri: "file:sub/x.opus") }
        try Data().write(to: URL(fileURLWithPath: dir.path + "/file"))
        files.directory = dir.path + "/file"
        #expect(files.directoryProblem == "the output folder \(dir.path)/file (files.directory) is not a folder")
    }

    /// Every plugin granted `media` reads the media folders: none may hold clients' recordings, apps'
    /// data folders or the state file, however a link spells it. The runtime does not start with one.
    @Test func aMediaFolderMayNotHoldTheRuntimesOwnFiles() throws {
        let root = dir.path
        for folder in ["music", "out", "apps"] { try FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true) }
        symlink(root, root + "/music/all")
        var configuration = RuntimeConfiguration()
        (configuration.files.directory, configuration.dataDirectory, configuration.state.path) = (root + "/out", root + "/apps", root + "/state.json")
        configuration.isolation.mediaFolders = [root + "/music"]
        #expect(configuration.mediaFolderConflict() == nil, "apart")
        configuration.isolation.mediaFolders = [root + "/music", root + "/music/all"]
        #expect(configuration.mediaFolderConflict() == "the media folder \(root)/music/all holds files.directory (\(root)/out): every plugin "
                + "granted media could read clients' recordings; keep isolation.mediaFolders apart from the runtime's own files")
        configuration.files.directory = nil
        #expect(configuration.mediaFolderConflict()?.hasPrefix("the media folder \(root)/music/all holds dataDirectory (\(root)/apps)") == true)
        configuration.dataDirectory = nil
        #expect(configuration.mediaFolderConflict()?.hasPrefix("the media folder \(root)/music/all holds the state file (\(root)/state.json)") == true,
                "a state file not written yet")
        configuration.isolation.mediaFolders = [root + "/out"]
        (configuration.files.directory, configuration.state.path) = (root + "/out-other", nil)
        #expect(configuration.mediaFolderConflict() == nil, "a folder whose name merely starts the same is another")
        configuration.files.directory = root + "/out/"
        #expect(configuration.mediaFolderConflict() != nil, "the same folder, spelt with a slash")
        #expect(throws: RuntimeError.self) { try Runtime(configuration: configuration, logger: Logger(level: .error)) }
    }

    /// An RTP sink's SDP file is written beside its path and renamed over it: a client's may only be
    /// in the output folder, and replaces an existing file only as a file sink would.
    @Test func clientSDPFilesAreConfinedAndReplaceOnlyWhatOverwritingAllows() throws {
        var files = FileOutputPolicy()
        files.directory = dir.path
        let real = URL(fileURLWithPath: dir.path).resolvingSymlinksInPath().path
        #expect(try files.confineReplacing("new.sdp", uri: "") == real + "/new.sdp")
        try "v=0".write(toFile: dir.path + "/old.sdp", atomically: false, encoding: .utf8)
        #expect(throws: SinkError.cannotOpen("u", "\(real)/old.sdp already exists; choose a new name, or allow overwriting (files.overwrite, --overwrite-files)")) {
            try files.confineReplacing("old.sdp", uri: "u")
        }
        try FileManager.default.createDirectory(atPath: dir.path + "/folder.sdp", withIntermediateDirectories: true)
        symlink("/etc/passwd", dir.path + "/link.sdp")
        files.overwrite = true
        #expect(try files.confineReplacing("old.sdp", uri: "") == real + "/old.sdp")
        #expect(throws: SinkError.self) { try files.confineReplacing("folder.sdp", uri: "") }
        #expect(throws: SinkError.self) { try files.confineReplacing("link.sdp", uri: "") }
        #expect(throws: SinkError.self) { try files.confineReplacing("/etc/passwd", uri: "") }
    }

    @Test func pinsKeepContextsOnANamedSink() throws {
        let configuration = try apply(#"{"sinks": ["file:c.opus?name=Cabin"], "pins": {"navigation": "Cabin", "systemSound": "Cabin"}}"#)
        #expect(configuration.pins == [.navigation: "Cabin", .systemSound: "Cabin"])
        #expect(configuration.sinks == ["file:\(dir.path)/c.opus?name=Cabin"])
    }

    /// Relative paths resolve from `baseDirectory` when the config has one (an embedded config has
    /// no file, so without it they resolve from the working directory), and always to absolute
    /// ones: `deckd --config deck.json` with `"dataDirectory": "data"` once made its apps' folders
    /// at `/data`.
    @Test func relativePathsResolveFromTheBaseDirectory() throws {
        let absolute = try apply(#"{"plugins": ["plugins"], "baseDirectory": "/opt/head-unit", "dataDirectory": "apps", "state": {"path": "s.json"}}"#)
        #expect(absolute.pluginDirectories == ["/opt/head-unit/plugins"])
        #expect(absolute.dataDirectory == "/opt/head-unit/apps" && absolute.state.path == "/opt/head-unit/s.json")
        let relative = try apply(#"{"baseDirectory": "share", "plugins": ["plugins", "/abs"]}"#)
        #expect(relative.pluginDirectories == [dir.path + "/share/plugins", "/abs"])
        var embedded = RuntimeConfiguration()
        try embedded.apply(try JSONValue.parse(#"{"plugins": ["plugins"]}"#), from: "config")
        let working = FileManager.default.currentDirectoryPath
        #expect(embedded.pluginDirectories == [working + "/plugins"])
        var named = RuntimeConfiguration()
        try named.apply(try JSONValue.parse(#"{"dataDirectory": "data", "state": {"path": "s.json"}, "sinks": ["file:o.opus"]}"#),
                        from: "car/deck.json")
        #expect(named.dataDirectory == working + "/car/data" && named.state.path == working + "/car/s.json")
        #expect(named.sinks == ["file:" + working + "/car/o.opus"])
        #expect(throws: ConfigurationError.invalid(dir.path + "/deck.json", "\"baseDirectory\" must be a folder path")) {
            _ = try apply(#"{"baseDirectory": ""}"#)
        }
    }

    /// `isolation.mode` is where plugins the policy does not name run, settable without a policy
    /// file; a policy's per-plugin modes still apply, whatever order the keys come in.
    @Test func theIsolationModeIsSetInTheConfig() throws {
        #expect(try apply(#"{"isolation": {"mode": "inline"}}"#).policy.isolation.defaultMode == .inline)
        try #"{"default": ["audio"], "isolation": {"default": "process", "plugins": {"org.x.trusted": "inline", "org.x.other": "process"}}}"#
            .write(toFile: dir.path + "/policy.json", atomically: true, encoding: .utf8)
        for json in [#"{"isolation": {"mode": "inline"}, "policy": "policy.json"}"#, #"{"policy": "policy.json", "isolation": {"mode": "inline"}}"#] {
            let isolation = try apply(json).policy.isolation
            #expect(isolation.defaultMode == .inline)
            #expect(isolation.pluginModes == ["org.x.trusted": .inline, "org.x.other": .process])
        }
        #expect(throws: ConfigurationError.invalid(dir.path + "/deck.json", "isolation.mode must be process or inline")) {
            _ = try apply(#"{"isolation": {"mode": "sandboxed"}}"#)
        }
    }

    @Test func theExampleConfigShowsEveryKeyAtItsDefault() throws {
        let path = Paths.repoRoot + "/examples/configs/deck.json"
        var example = RuntimeConfiguration()
        try example.apply(configFile: path)
        let defaults = RuntimeConfiguration()
        #expect(example.audio == defaults.audio)
        #expect(example.httpLimits == defaults.httpLimits)
        #expect(example.control == defaults.control)
        #expect(example.session == defaults.session)
        #expect(example.files.overwrite == defaults.files.overwrite)
        #expect(example.maxSinks == defaults.maxSinks)
        var isolation = example.isolation
        isolation.hostPath = nil  // shown with an installed path; the default looks beside deckd
        #expect(isolation == defaults.isolation)
        #expect(example.policy.isolation == IsolationPolicy())
        #expect(example.loopBudget == defaults.loopBudget)
        #expect(example.nowPlaying == defaults.nowPlaying)
        #expect(example.ui == defaults.ui)
        #expect(example.display == defaults.display)
        #expect(example.state.saveDelayMilliseconds == defaults.state.saveDelayMilliseconds)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for field in ControlLimits.fields { #expect(text.contains("\"\(field.key)\"")) }
    }

    @Test func appSettingsAreObjectsByPluginIDWithinTheirSize() throws {
        let configuration = try apply(#"{"appSettings": {"org.deck.radio": {"stations": "/srv/stations.json"}}}"#)
        #expect(configuration.appSettings["org.deck.radio"] == .object(["stations": .string("/srv/stations.json")]))
        let file = dir.path + "/deck.json"
        #expect(throws: ConfigurationError.invalid(file, "\"appSettings\" must be an object from plugin id to its settings object, got an array")) {
            _ = try apply(#"{"appSettings": []}"#)
        }
        #expect(throws: ConfigurationError.invalid(file, "appSettings: \"radio\" is not a plugin id (reverse-DNS, e.g. \"org.deck.radio\")")) {
            _ = try apply(#"{"appSettings": {"radio": {}}}"#)
        }
        #expect(throws: ConfigurationError.invalid(file, "appSettings.org.deck.radio must be an object, got a string")) {
            _ = try apply(#"{"appSettings": {"org.deck.radio": "fm"}}"#)
        }
        let big = String(repeating: "x", count: 17_000)
        #expect(throws: ConfigurationError.invalid(file, "appSettings.org.deck.radio takes 17008 bytes; at most 16384 are allowed")) {
            _ = try apply(#"{"appSettings": {"org.deck.radio": {"a": "\#(big)"}}}"#)
        }
    }

    @Test func theEncoderAcceptsFractionalFrameSizes() throws {
        #expect(try apply(#"{"encoder": {"frameMs": 2.5}}"#).audio.frameSize.samples == 120)
    }
}
