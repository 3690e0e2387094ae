import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

/// A plugin in a host process, entitled only to `audio`, tries what a hostile third party would:
/// each attempt fails the way the integrator guide's sandbox table says. Run in the isolated pass
/// only: inline, a plugin is deckd itself.
@Suite struct SandboxTests {
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
    /// and ended with its app. A crashed host's orphans are deckd's, ended as the host's end is heard.
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
        // (With it, the app's helper, when it had not ended yet: counts vary with timing.)
        #expect(scene.deckd.log.contains("process(es) that plugins' ended hosts left behind"), "\(scene.deckd.log)")
        // The restarted host's orphan ends with the app, ended by the host.
        try scene.expectNothingOutlivesTheApp()
        #expect(scene.deckd.log.contains(#/org\.deck\.test\.hostile: destroy left [12] process\(es\) running/#), "\(scene.deckd.log)")
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

    /// deckd as root keeping its state in a folder of mode 0700 (as under /root): the hosts, on
    /// uids of their own, cannot reach their data folders beside it. The log names the folder and
    /// the fix, and an app that cannot save says why.
    @Test func aDataFolderTheHostsCannotReachIsNamedWithTheFix() throws {
        let dir = TemporaryDirectory()
        let closed = dir.path + "/closed"
        #expect(mkdir(closed, 0o700) == 0)
        let firstParty = Paths.binDir + "/plugins"  // Library among them, which saves its index at start
        let deckd = try DeckdProcess(["--plugins", firstParty, "--state", closed + "/state.json", "--isolation", "process"])
        #expect(deckd.waitForLog("deckd: ready"), "\(deckd.log)")
        #expect(deckd.log.contains("org.deck.library's data folder: its host (uid "), "\(deckd.log)")
        #expect(deckd.log.contains("cannot reach \(closed)/apps/org.deck.library: \(closed) has mode 700, which lets no other user pass through; "
                                   + "run 'chmod o+x \(closed)'"), "\(deckd.log)")
        #expect(deckd.waitForLog("cannot save the library index \(closed)/apps/org.deck.library/library.json: Permission denied"), "\(deckd.log)")
        #expect(deckd.stop() == 0)

        // Once others may pass through, nothing is said.
        #expect(chmod(closed, 0o711) == 0)
        let again = try DeckdProcess(["--plugins", firstParty, "--state", closed + "/state.json", "--isolation", "process"])
        #expect(again.waitForLog("library: 0 tracks"), "\(again.log)")
        #expect(!again.log.contains("data folder") && !again.log.contains("cannot save"), "\(again.log)")
        #expect(again.stop() == 0)
    }
}
