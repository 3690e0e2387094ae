import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

extension SandboxTests {
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
            // Dead, it is reaped by its host, or by deckd once the host is gone (a sweep as each child of deckd ends).
            let reaped = Date().addingTimeInterval(5)
            while access("/proc/\(grandchild)", F_OK) == 0 && Date() < reaped { usleep(20_000) }
            #expect(access("/proc/\(grandchild)", F_OK) != 0, "the grandchild \(grandchild) was never reaped")
        }
    }
}
