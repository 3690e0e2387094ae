import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

/// A plugin in a host process, entitled only to `audio`, tries what a hostile third party would:
/// each attempt fails the way the integrator guide's sandbox table says. Run in the isolated pass
/// only: inline, a plugin is deckd itself.
@Suite struct SandboxTests {
    /// A deckd serving a socket and a TCP port with a token, with a victim app loaded; the
    /// hostile app is built once the port is known and loaded with `apps.load`.
    struct Scene {
        let dir = TemporaryDirectory()
        let deckd: DeckdProcess
        let owner: LineClient
        let victim: String
        let victimManifest: String
        let hostile: String
        /// The port of deckd's HTTP sink (`/stream.opus`).
        let httpPort: Int
        var data: String { dir.path + "/data/org.deck.test.hostile" }

        /// `policy`, when given, is the entitlement policy's text (`--policy`); with `user`, deckd
        /// runs as that uid (and not root), as the unit's `User=deck` runs it; with `forks`, the
        /// hostile plugin forks up to that many children (and holds them that long).
        init(config: String = "{}", permissions: [String] = [], policy: String? = nil, launcher: [String] = [], user: uid_t? = nil,
             forks: Int? = nil, holdingForksMilliseconds: Int? = nil, bus: String? = nil) throws {
            let plugins = dir.path + "/plugins", extra = dir.path + "/extra", socket = dir.path + "/deck.sock", token = dir.path + "/token"
            for folder in [plugins, extra] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            chmod(dir.path, 0o755)
            try "correct-horse-battery-staple\n".write(toFile: token, atomically: true, encoding: .utf8)
            chmod(token, 0o600)
            victim = try Fixture.app(in: plugins, "Victim", id: "org.deck.test.victim")
            victimManifest = try String(contentsOfFile: victim + "/manifest.json", encoding: .utf8)
            try FileManager.default.createDirectory(atPath: dir.path + "/media", withIntermediateDirectories: true)
            chmod(dir.path + "/media", 0o755)
            try "music".write(toFile: dir.path + "/media/song.opus", atomically: true, encoding: .utf8)
            chmod(dir.path + "/media/song.opus", 0o644)
            var settings = try #require(try JSONSerialization.jsonObject(with: Data(config.utf8)) as? [String: Any])
            settings["dataDirectory"] = dir.path + "/data"
            var isolation = settings["isolation"] as? [String: Any] ?? [:]
            isolation["mediaFolders"] = [dir.path + "/media"]
            settings["isolation"] = isolation
            try JSONSerialization.data(withJSONObject: settings).write(to: URL(fileURLWithPath: dir.path + "/deck.json"))
            var policyArguments: [String] = []
            if let policy {
                try policy.write(toFile: dir.path + "/policy.json", atomically: true, encoding: .utf8)
                policyArguments = ["--policy", dir.path + "/policy.json"]
            }
            var launcher = launcher
            if let user {
                // Its own folder and token become the user's; deckd and its host are copied where the user can run them.
                for path in [dir.path, token] { chown(path, user, user) }
                try FileManager.default.createDirectory(atPath: dir.path + "/bin", withIntermediateDirectories: true)
                launcher = ["/bin/sh", "-c", #"cp "$1" "$(dirname "$1")/deck-plugin-host" "$0" && shift && exec /usr/bin/setpriv --reuid=\#(user) --regid=\#(user) --clear-groups "$0/deckd" "$@""#,
                            dir.path + "/bin"]
            }
            deckd = try DeckdProcess(["--config", dir.path + "/deck.json", "--plugins", plugins, "--socket", socket, "--state", "none",
                                      "--isolation", "process", "--tcp", "localhost:0", "--token-file", token] + policyArguments + (bus == nil ? [] : ["--mpris"]),
                                     launcher: launcher, environment: ["DECK_SECRET": "s3cret"].merging(bus.map { ["DBUS_SESSION_BUS_ADDRESS": $0] } ?? [:]) { $1 })
            #expect(deckd.waitForLog("deckd: ready"), "\(deckd.log)")
            let portLine = try #require(deckd.log.split(separator: "\n").first { $0.contains("and tcp 127.0.0.1:") }, "\(deckd.log)")
            let port = try #require(Int(portLine.split(separator: ":").last?.split(separator: " ").first ?? ""))
            let sinkLine = try #require(deckd.log.split(separator: "\n").first { $0.contains("http://127.0.0.1:") }, "\(deckd.log)")
            httpPort = try #require(Int(sinkLine.split(separator: ":").last?.prefix { $0.isNumber } ?? ""))
            hostile = extra + "/Hostile.deckplugin"
            try Fixture.bundle(in: extra, name: "Hostile",
                               defines: ["FIXTURE_ID=\"org.deck.test.hostile\"", "FIXTURE_SANDBOX_PROBE", "FIXTURE_SOCKET=\"\(socket)\"",
                                         "FIXTURE_VICTIM=\"\(victim)/manifest.json\"", "FIXTURE_TOKEN=\"\(token)\"",
                                         "FIXTURE_TCP_PORT=\(port)", "FIXTURE_HTTP_PORT=\(httpPort)", "FIXTURE_MEDIA=\"\(dir.path)/media/song.opus\"", "FIXTURE_OWN_MANIFEST=\"\(hostile)/manifest.json\""] + (forks.map { ["FIXTURE_PROCESSES=\($0)"] } ?? [])
                                         + (holdingForksMilliseconds.map { ["FIXTURE_PROCESSES_HOLD_MS=\($0)"] } ?? [])
                                         + (bus.map { ["FIXTURE_BUS=\"\($0)\""] } ?? []),
                               manifest: ["id": "org.deck.test.hostile", "entitlements": ["audio"], "permissions": permissions])
            owner = LineClient(path: socket)
            let loaded = owner.call("apps.load", #"{"path":"\#(hostile)"}"#)
            #expect(loaded?.contains(#""result""#) == true, "\(loaded ?? "no answer")")
        }

        /// What the probe logged for `attempt`.
        func outcome(_ attempt: String) -> String {
            deckd.log.split(separator: "\n").first { $0.contains("sandbox: \(attempt): ") }
                .map { String($0[$0.range(of: "sandbox: \(attempt): ")!.upperBound...]) } ?? "(not logged)"
        }

        /// Each attempt the sandbox must stop, whatever the uid: its files, signals, output, and
        /// deckd's scheduling and limits.
        func expectContained() throws {
            #expect(deckd.waitForLog("sandbox: done: all tried"), "\(deckd.log)")
            for attempt in ["environ", "token", "chmod token", "xattr victim", "victim", "own bundle", "signal", "realtime thread", "tcp", "http",
                            "tcp from interface", "http from interface",
                            "renice deckd", "limit deckd", "pin deckd", "schedule deckd", "io priority deckd", "renice uid"] {
                #expect(outcome(attempt).hasPrefix("refused"), "\(attempt): \(outcome(attempt))")
            }
            #expect(outcome("env") == "clean")
            #expect(outcome("own scheduling") == "allowed", "a thread sets its own nice value, limits, CPUs, policy and I/O priority")
            #expect(outcome("caps") == "none", "a host holds no capability, even as root")
            var token = stat()
            #expect(stat(dir.path + "/token", &token) == 0 && token.st_mode & 0o777 == 0o600)
            #expect(outcome("data") == "writable")
            #expect(!deckd.log.contains("FORGED"))
            #expect(try String(contentsOfFile: victim + "/manifest.json", encoding: .utf8) == victimManifest)
            #expect(owner.call("runtime.info", id: 3)?.contains(#""result""#) == true)  // the owner still steers it
            try expectRenderContained()
        }

        /// The host's render thread, which starts before the host restricts itself, is held as
        /// its loop thread is: the plugin's first render tries the same files and signal, and to
        /// clear its host's subreaper flag.
        func expectRenderContained() throws {
            #expect(owner.call("apps.launch", #"{"id":"org.deck.test.hostile","item":"sine-440"}"#, id: 5)?.contains(#""result""#) == true)
            #expect(deckd.waitForLog("sandbox: render done: all tried"), "\(deckd.log)")
            for attempt in ["render token", "render environ", "render victim", "render signal", "render subreaper"] {
                #expect(outcome(attempt).hasPrefix("refused"), "\(attempt): \(outcome(attempt))")
            }
            #expect(outcome("render caps") == "none")
            #if arch(x86_64)
            for attempt in ["render subreaper x32", "render subreaper i386"] {  // where the kernel has that ABI
                #expect(outcome(attempt).hasPrefix("refused") || outcome(attempt) == "absent", "\(attempt): \(outcome(attempt))")
            }
            #endif
            #expect(try String(contentsOfFile: victim + "/manifest.json", encoding: .utf8) == victimManifest)
        }

        /// An RTP sink of the car's audio pointed at the hostile plugin's UDP socket on loopback
        /// (its network granted) sends it nothing, and says why (once its app plays).
        func expectRTPRefused(because reason: String) throws {
            let port = try #require(Int(outcome("udp receiver")), "\(outcome("udp receiver"))")
            let added = owner.call("sinks.add", #"{"uri":"rtp://127.0.0.1:\#(port)"}"#, id: 11)
            #expect(added?.contains(#""result""#) == true, "\(added ?? "no answer")")
            #expect(deckd.waitForLog("not sending: the socket receiving 127.0.0.1:\(port) belongs to "), "\(deckd.log)")
            #expect(deckd.log.contains(reason + "; the car's audio is not a plugin's to record"), "\(deckd.log)")
            let sinks = owner.call("sinks.list", id: 12) ?? ""
            let sink = try #require((try JSONSerialization.jsonObject(with: Data(sinks.utf8)) as? [String: Any])
                .flatMap { $0["result"] as? [[String: Any]] }?
                .first { ($0["uri"] as? String)?.hasPrefix("rtp://127.0.0.1:\(port)") == true }, "\(sinks)")
            #expect(sink["packets"] as? Int == 0, "\(sink)")
            #expect((sink["errors"] as? Int ?? 0) > 0, "\(sink)")
        }

        /// The pid the hostile app's setsid grandchild wrote into its data folder (once it tried
        /// what it tries once adopted: up to 5 s to be adopted, 5 s for each answer, 2 s
        /// for a silent sink).
        func grandchild() throws -> pid_t {
            var grandchild: pid_t = 0
            for _ in 0..<3_000 where grandchild == 0 {
                grandchild = pid_t((try? String(contentsOfFile: data + "/pid", encoding: .utf8)) ?? "") ?? 0
                if grandchild == 0 { usleep(10_000) }
            }
            try #require(grandchild > 0, "\(deckd.log)")
            return grandchild
        }

        /// What the setsid grandchild, once adopted (by deckd, its subreaper), did at `attempt` (control, tcp, http).
        func orphanOutcome(_ attempt: String) throws -> String {
            _ = try grandchild()
            let report = (try? String(contentsOfFile: data + "/orphan", encoding: .utf8)) ?? ""
            return report.split(separator: "\n").first { $0.hasPrefix("\(attempt): ") }.map { String($0.dropFirst(attempt.count + 2)) } ?? "(not logged)"
        }

        /// The helper the hostile app left to end on its own, adopted by its host, is reaped
        /// by the host within two sweeps (5 s each), not left a zombie while the app runs.
        func expectEndedHelperReaped() throws {
            var helper: pid_t = 0
            for _ in 0..<500 where helper == 0 {
                helper = pid_t((try? String(contentsOfFile: data + "/ended", encoding: .utf8)) ?? "") ?? 0
                if helper == 0 { usleep(10_000) }
            }
            try #require(helper > 0, "\(deckd.log)")
            let host = try hostPID()
            let deadline = Date().addingTimeInterval(15)
            while access("/proc/\(helper)", F_OK) == 0 && Date() < deadline { usleep(50_000) }
            #expect(access("/proc/\(helper)", F_OK) != 0, "the ended helper \(helper) is still a zombie of host \(host)")
            #expect(try hostPID() == host && SandboxTests.isRunning(host), "reaped by the running host, not at its end")
        }

        /// Whether deckd could give each host a cgroup here (its log says which, with the first host).
        var hasCgroups: Bool { deckd.log.contains("a cgroup each under") }

        /// The setsid grandchild, once adopted, is refused as a plugin's on the control socket, the
        /// TCP port and the HTTP sink (the network granted).
        func expectOrphanRefused() throws {
            let orphan = try ["control", "tcp", "http"].map(orphanOutcome)
            #expect(orphan[0].hasPrefix("refused ("), "\(orphan)")
            #expect(orphan[1].contains("-32005") && orphan[1].contains("which descends from deckd"), "\(orphan)")
            #expect(orphan[2].hasPrefix("refused (HTTP/1.1 403 Forbidden"), "\(orphan)")
        }

        /// The pid of the hostile app's host, from `apps.list`.
        func hostPID() throws -> pid_t {
            let answer = try #require(owner.call("apps.list", id: 9))
            let result = try #require((try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])?["result"] as? [String: Any])
            let app = try #require((result["apps"] as? [[String: Any]])?.first { $0["id"] as? String == "org.deck.test.hostile" }, "\(answer)")
            return try #require((app["pid"] as? Int).map { pid_t($0) }, "\(answer)")
        }

        /// The setsid grandchild lives while its app does and is gone when `apps.unload` returns —
        /// through its cgroup, its uid when it has one of its own, or else as its host's descendant
        /// (the host is its subreaper) — and is reaped by deckd, not left a zombie.
        func expectNothingOutlivesTheApp() throws {
            let grandchild = try grandchild()
            #expect(SandboxTests.isRunning(grandchild))
            #expect(owner.call("apps.unload", #"{"id":"org.deck.test.hostile"}"#, id: 2)?.contains(#""result":true"#) == true)
            // Killed at once; on two loaded cores the kernel may take a while to let it die.
            let deadline = Date().addingTimeInterval(5)
            while SandboxTests.isRunning(grandchild) && Date() < deadline { usleep(10_000) }
            #expect(!SandboxTests.isRunning(grandchild), "the setsid grandchild \(grandchild) outlived apps.unload")
            // Dead, it is reaped by its host, or by deckd once the host is gone (a sweep a second).
            let reaped = Date().addingTimeInterval(5)
            while access("/proc/\(grandchild)", F_OK) == 0 && Date() < reaped { usleep(20_000) }
            #expect(access("/proc/\(grandchild)", F_OK) != 0, "the grandchild \(grandchild) was never reaped")
        }
    }

    /// deckd as root: the host runs as a uid of its own in a network namespace, under Landlock,
    /// with at most `processLimit` processes and threads.
    @Test func aHostilePluginCannotSteerTheRuntimeReadItsSecretsWriteOtherAppsOrOutliveItsApp() throws {
        let scene = try Scene(config: #"{"appSettings": {"org.deck.test.hostile": {"station": "FM 4", "mediaFolders": ["/etc"]}}, "isolation": {"processLimit": 64}}"#,
                              forks: 100)
        try scene.expectContained()
        let forked = scene.outcome("processes")
        let made = try #require(Int(forked.split(separator: " ").dropFirst().first ?? ""), "\(forked)")
        #expect(made > 0 && made < 64 && forked.hasSuffix("of 100 (Resource temporarily unavailable)"), "the uid's limit stops a fork bomb: \(forked)")
        #expect(scene.deckd.log.contains("at most 64 processes and threads a uid"), "\(scene.deckd.log)")
        #expect(scene.outcome("control").hasPrefix("refused ("), "\(scene.outcome("control"))")
        #expect(scene.outcome("media").hasPrefix("refused"), "without the media permission")
        #expect(scene.outcome("settings") == #"{"station":"FM 4"}"#, "its own settings, no media folders without media")
        #expect(scene.deckd.log.contains("a uid of its own (61000…70999); no capabilities; a seccomp filter (its subreaper flag, other ABIs, others' scheduling and limits, Unix sockets unless granted services); Landlock"), "\(scene.deckd.log)")
        #expect(scene.outcome("unix socket").hasPrefix("refused (Operation not permitted"), "local services are the services permission's, on every uid: \(scene.outcome("unix socket"))")
        var info = stat()
        #expect(stat(scene.data, &info) == 0)
        #expect((61_000...70_999).contains(info.st_uid), "the data folder belongs to the host's uid, not \(info.st_uid)")
        #expect(info.st_mode & 0o777 == 0o700)
        try scene.expectEndedHelperReaped()
        try scene.expectNothingOutlivesTheApp()
        #expect(scene.deckd.stop() == 0)
    }

    /// On deckd's own uid (here root's, `uidBase` 0) Landlock keeps files and signals out of
    /// reach, the seccomp filter what Landlock does not govern and, without `services`, Unix
    /// sockets; with the network granted, deckd still knows its descendants on the TCP port.
    @Test func onTheRuntimesOwnUidLandlockAndPeerChecksStillHold() throws {
        let scene = try Scene(config: #"{"isolation": {"uidBase": 0}}"#, permissions: ["network", "media"])
        try scene.expectContained()
        #expect(scene.outcome("keyring").hasPrefix("refused"), "the runtime's uid's keyring: \(scene.outcome("keyring"))")
        #expect(scene.deckd.log.contains("root's uid (uidBase 0): root's files and its standing with local services; no capabilities; a seccomp filter (its subreaper flag, other ABIs, others' scheduling and limits, files' modes, owners and attributes, io_uring, keyrings, Unix sockets unless granted services)"), "\(scene.deckd.log)")
        #expect(scene.outcome("unix socket").hasPrefix("refused (Operation not permitted"), "\(scene.outcome("unix socket"))")
        #expect(scene.outcome("control").hasPrefix("refused ("), "\(scene.outcome("control"))")
        #expect(scene.outcome("tcp").contains("-32005"), "\(scene.outcome("tcp"))")
        #expect(scene.deckd.log.contains("descends from deckd"))
        // From an interface's address to loopback, the peer is not loopback: still this machine's.
        #expect(scene.outcome("tcp from interface").contains("-32005"), "\(scene.outcome("tcp from interface"))")
        #expect(scene.outcome("http from interface").hasPrefix("refused (HTTP/1.1 403 Forbidden"), "\(scene.outcome("http from interface"))")
        // With the network it reaches the HTTP sink's port, but may not record the car's audio.
        #expect(scene.outcome("http").hasPrefix("refused (HTTP/1.1 403 Forbidden"), "\(scene.outcome("http"))")
        #expect(scene.deckd.log.contains("which descends from deckd: a plugin's; the car's audio is not a plugin's to record"), "\(scene.deckd.log)")
        #expect(scene.outcome("media") == "readable")
        try scene.expectRTPRefused(because: "which descends from deckd: a plugin's")
        #expect(scene.outcome("settings") == #"{"mediaFolders":["\#(scene.dir.path)/media"]}"#, "the folders it may read: \(scene.outcome("settings"))")
        let apps = scene.owner.call("apps.list", id: 4) ?? ""
        #expect(apps.contains(#""permissions":["media","network"]"#), "\(apps)")
        // A setsid orphan is its host's child, not init's (the host adopts its plugin's orphans): still a plugin's.
        try scene.expectOrphanRefused()
        #expect(SandboxTests.parent(of: try scene.grandchild()) == (try scene.hostPID()))
        try scene.expectNothingOutlivesTheApp()
        #expect(scene.deckd.stop() == 0)
    }

    /// On deckd's own uid RLIMIT_NPROC would count deckd's threads too: deckd counts the host's
    /// cgroup instead, and ends a host whose plugin runs more than `processLimit` processes and
    /// threads, with everything in its group.
    @Test func onTheRuntimesOwnUidAForkBombEndsItsHost() throws {
        let scene = try Scene(config: #"{"isolation": {"uidBase": 0, "processLimit": 64}}"#, forks: 100, holdingForksMilliseconds: 5_000)
        try #require(scene.hasCgroups, "deckd gives hosts cgroups here: \(scene.deckd.log)")
        #expect(scene.deckd.log.contains("at most 64 processes and threads a host (its cgroup, counted)"), "\(scene.deckd.log)")
        #expect(scene.deckd.waitForLog(", over isolation.processLimit (64)"), "\(scene.deckd.log)")
        let line = scene.deckd.log.split(separator: "\n").first { $0.contains("over isolation.processLimit") }.map(String.init) ?? ""
        let ran = Int(line.components(separatedBy: " ran ").last?.split(separator: " ").first ?? "") ?? 0
        #expect(ran > 64, "\(line)")
        #expect(!scene.deckd.log.contains("sandbox: processes: made"), "the host was ended while its children waited")
        #expect(scene.owner.call("runtime.info", id: 3)?.contains(#""result""#) == true, "deckd answers on")
        #expect(scene.deckd.stop() == 0)
    }

    /// deckd as an ordinary user, as the unit runs it (`User=deck`): its hosts share its uid, and
    /// Landlock, the seccomp filter and deckd's peer checks hold what that uid would give them.
    /// Granted `services`, the plugin makes Unix sockets, and deckd's peer checks refuse it.
    @Test func asAnOrdinaryUserDeckdsHostsShareItsUidAndAreStillHeld() throws {
        let nobody: uid_t = 65_534
        let scene = try Scene(permissions: ["network", "services"], user: nobody)
        try scene.expectContained()
        #expect(scene.deckd.log.contains("sandbox: the runtime's uid (not root, or uidBase 0); no capabilities; a seccomp filter (its subreaper flag, other ABIs, others' scheduling and limits, files' modes, owners and attributes, io_uring, keyrings, Unix sockets unless granted services); Landlock"), "\(scene.deckd.log)")
        var info = stat()
        #expect(stat(scene.data, &info) == 0 && info.st_uid == nobody, "deckd ran as \(nobody) and made the data folder")
        #expect(scene.outcome("keyring").hasPrefix("refused"), "\(scene.outcome("keyring"))")
        #expect(scene.outcome("unix socket") == "made", "the services permission lets it make Unix sockets")
        try scene.expectEndedHelperReaped()
        #expect(scene.outcome("control").contains(#"{"error":{"code":-32005"#), "deckd refuses its descendants: \(scene.outcome("control"))")
        #expect(scene.outcome("tcp").contains("-32005"), "\(scene.outcome("tcp"))")
        try scene.expectOrphanRefused()
        try scene.expectNothingOutlivesTheApp()
        #expect(scene.deckd.stop() == 0)
    }

    /// On deckd's own uid a plugin granted `services` reaches deckd's session bus as deckd's uid:
    /// the MPRIS player asks the bus who calls and refuses a plugin's process, and answers others.
    @Test func aPluginGrantedServicesCannotSteerTheRuntimesMPRISPlayer() throws {
        let busFolder = TemporaryDirectory()
        let bus = try MPRISTests.SessionBus(in: busFolder)
        let scene = try Scene(config: #"{"isolation": {"uidBase": 0}}"#, permissions: ["services"], bus: bus.address)
        #expect(scene.deckd.waitForLog("sandbox: done: all tried"), "\(scene.deckd.log)")
        #expect(scene.outcome("unix socket") == "made")
        #expect(scene.outcome("mpris").hasPrefix("refused (") && scene.outcome("mpris").contains("org.freedesktop.DBus.Error.AccessDenied"),
                "\(scene.outcome("mpris"))")
        #expect(scene.outcome("mpris").contains("descends from deckd: a plugin's; plugins reach the runtime only through their host"),
                "\(scene.outcome("mpris"))")
        #expect(scene.deckd.log.contains("warning mpris: refused :"), "\(scene.deckd.log)")
        // Anyone else on the bus is answered.
        let other = try runProgram("/usr/bin/dbus-send", ["--bus=\(bus.address)", "--print-reply", "--dest=org.mpris.MediaPlayer2.deck",
                                                          "/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Properties.Get",
                                                          "string:org.mpris.MediaPlayer2", "string:Identity"], timeout: 20)
        #expect(other.status == 0 && other.output.contains("string \"Deck\""), "\(other.output)")
        #expect(scene.deckd.stop() == 0)
    }

    /// deckd as root with the network granted: the host's own uid is what marks its connections.
    @Test func withTheNetworkAPluginStillCannotSteerTheRuntimeNorRecordTheCar() throws {
        let scene = try Scene(permissions: ["network"])
        try scene.expectContained()
        #expect(scene.outcome("tcp").contains("-32005"), "\(scene.outcome("tcp"))")
        #expect(scene.outcome("http").hasPrefix("refused (HTTP/1.1 403 Forbidden"), "\(scene.outcome("http"))")
        #expect(scene.outcome("tcp from interface").contains("-32005"), "\(scene.outcome("tcp from interface"))")
        #expect(scene.outcome("http from interface").hasPrefix("refused (HTTP/1.1 403 Forbidden"), "\(scene.outcome("http from interface"))")
        #expect(scene.deckd.log.contains(", a plugin's; the car's audio is not a plugin's to record"), "\(scene.deckd.log)")
        try scene.expectRTPRefused(because: "a plugin's")
        let orphan = try ["tcp", "http"].map(scene.orphanOutcome)
        #expect(orphan[0].contains("-32005") && orphan[1].hasPrefix("refused (HTTP/1.1 403"), "its orphans run as its uid too: \(orphan)")
        // Anyone else on this machine still listens.
        let listener = LoopbackClient.connect(port: scene.httpPort)
        defer { close(listener) }
        LoopbackClient.send(listener, "GET /stream.opus HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(String(decoding: LoopbackClient.readAll(listener, limit: 64, seconds: 5), as: UTF8.self).hasPrefix("HTTP/1.1 200 OK"))
        #expect(scene.deckd.stop() == 0)
    }

    /// Without Landlock on deckd's own uid the control socket is in reach: deckd's checks alone
    /// refuse the host and its `setsid` orphan, which deckd adopted (their ancestry).
    @Test func withoutLandlockOnTheRuntimesOwnUidTheControlSocketStillRefusesPlugins() throws {
        let scene = try Scene(config: #"{"isolation": {"uidBase": 0, "sandbox": false}}"#, permissions: ["network"])
        #expect(scene.deckd.waitForLog("sandbox: done: all tried"), "\(scene.deckd.log)")
        #expect(scene.outcome("control").contains(#"{"error":{"code":-32005"#), "\(scene.outcome("control"))")
        let orphan = try scene.orphanOutcome("control")
        #expect(orphan.contains(#"{"error":{"code":-32005"#) && orphan.contains("descends from deckd"), "\(orphan)")
        #expect(scene.owner.call("apps.list", id: 3)?.contains("org.deck.test.victim") == true, "the victim is still loaded")
        try scene.expectNothingOutlivesTheApp()
        #expect(scene.deckd.stop() == 0)
    }

    /// Without cgroups, on deckd's own uid, only ancestry marks a plugin's processes: the host is
    /// its plugin's subreaper, so a `setsid` orphan stays its descendant, refused as a plugin's
    /// and ended with its app. A crashed host's orphans are deckd's, ended within a sweep or two.
    @Test func withoutCgroupsAHostKeepsItsPluginsOrphansAndDeckdEndsACrashedOnes() throws {
        let scene = try Scene(config: #"{"isolation": {"uidBase": 0}}"#, permissions: ["network"], launcher: SandboxTests.withoutCgroups)
        #expect(!scene.hasCgroups && scene.deckd.log.contains("no cgroup v2 hierarchy is mounted"), "\(scene.deckd.log)")
        try scene.expectContained()
        try scene.expectOrphanRefused()
        let first = try SandboxTests.crashTheHost(of: scene)
        // Every plugin runs in a host: an orphan deckd adopts is no live app's, and is ended.
        let ended = Date().addingTimeInterval(5)
        while access("/proc/\(first)", F_OK) == 0 && Date() < ended { usleep(20_000) }
        #expect(access("/proc/\(first)", F_OK) != 0, "the crashed host's orphan \(first) lives on")
        #expect(scene.deckd.log.contains("ended 1 process(es) that plugins' ended hosts left behind"), "\(scene.deckd.log)")
        // The restarted host's orphan ends with the app, ended by the host.
        try scene.expectNothingOutlivesTheApp()
        #expect(scene.deckd.log.contains("org.deck.test.hostile: destroy left 1 process(es) running"), "\(scene.deckd.log)")
        #expect(scene.deckd.stop() == 0)
    }

    /// With a plugin inline, whose own children are deckd's too, a crashed host's orphan lives
    /// until deckd stops, and is ended then.
    @Test func withAnInlinePluginACrashedHostsOrphanEndsWithDeckd() throws {
        let policy = #"{"default": ["audio"], "permissions": {"default": ["network"]}, "isolation": {"default": "process", "plugins": {"org.deck.test.victim": "inline"}}}"#
        let scene = try Scene(config: #"{"isolation": {"uidBase": 0}}"#, permissions: ["network"], policy: policy, launcher: SandboxTests.withoutCgroups)
        #expect(scene.owner.call("apps.list", id: 3)?.contains(#""isolation":"inline""#) == true, "the victim runs inline")
        #expect(scene.deckd.waitForLog("sandbox: done: all tried"), "\(scene.deckd.log)")
        let first = try SandboxTests.crashTheHost(of: scene)
        usleep(2_500_000)  // two sweeps
        #expect(SandboxTests.isRunning(first))
        try scene.expectNothingOutlivesTheApp()
        #expect(scene.deckd.stop() == 0)
        #expect(access("/proc/\(first)", F_OK) != 0, "the crashed host's orphan \(first) outlived deckd")
        #expect(scene.deckd.log.contains("ended 1 process(es) that plugins left behind"), "\(scene.deckd.log)")
    }

    /// Kills the hostile app's host with SIGSEGV once its orphan is the host's child; the orphan,
    /// now deckd's (the next orphan, the restarted app's, writes the pid file anew).
    static func crashTheHost(of scene: Scene) throws -> pid_t {
        let host = try scene.hostPID(), first = try scene.grandchild()
        #expect(SandboxTests.parent(of: first) == host)
        for file in ["pid", "orphan"] { unlink(scene.data + "/" + file) }
        kill(host, SIGSEGV)
        #expect(scene.deckd.waitForLog("org.deck.test.hostile restarted"), "\(scene.deckd.log)")
        return first
    }

    /// Starts deckd in a mount namespace of its own without the cgroup v2 hierarchy, as on a
    /// machine without one (or where the runtime's group is not delegated to it).
    static let withoutCgroups = ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                                 #"for m in $(findmnt -rn -t cgroup2 -o TARGET); do umount -l "$m" || exit 1; done; exec "$@""#, "sh"]

    /// A process's parent, from /proc/PID/stat; nil when it is gone.
    static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let name = stat.lastIndex(of: ")") else { return nil }
        return pid_t(stat[name...].split(separator: " ").dropFirst(2).first ?? "")
    }

    /// Whether `pid` still runs: a zombie (dead, waiting for whoever inherited it to reap it) does not.
    static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let name = stat.lastIndex(of: ")") else {
            return kill(pid, 0) == 0
        }
        return !stat[name...].dropFirst(2).hasPrefix("Z")
    }

    /// A permission the manifest declares but the policy does not grant is not held, and is
    /// named in the log.
    @Test func undeclaredOrUngrantedPermissionsAreNotHeld() throws {
        let dir = TemporaryDirectory()
        try #"{"default": ["audio"], "permissions": {"plugins": {"org.deck.test.media": ["media"]}}}"#
            .write(toFile: dir.path + "/policy.json", atomically: true, encoding: .utf8)
        let plugins = dir.path + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        for (name, id) in [("Radio", "org.deck.test.radio"), ("Media", "org.deck.test.media")] {
            try Fixture.bundle(in: plugins, name: name, defines: ["FIXTURE_ID=\"\(id)\""],
                               manifest: ["id": id, "entitlements": ["audio"], "permissions": ["network", "media"]])
        }
        let deckd = try DeckdProcess(["--plugins", plugins, "--socket", dir.path + "/s", "--state", "none", "--policy", dir.path + "/policy.json"])
        #expect(deckd.waitForLog("deckd: ready"), "\(deckd.log)")
        let apps = LineClient(path: dir.path + "/s").call("apps.list") ?? ""
        #expect(apps.contains(#""id":"org.deck.test.radio""#) && apps.contains(#""permissions":[]"#), "\(apps)")
        #expect(apps.contains(#""permissions":["media"]"#), "\(apps)")
        #expect(deckd.log.contains("org.deck.test.radio: permissions not granted by policy, its sandbox keeps it from: media, network"))
        #expect(deckd.stop() == 0)
    }
}
