import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

/// The hosts' cgroups outlive a killed deckd and are shared by runtimes in other pid namespaces:
/// what a runtime ends and removes of them, and what it leaves alone.
extension SandboxTests {
    /// The test runner's cgroup v2 folder, inside which every deckd it starts makes its groups.
    static func runnerCgroup() -> String? {
        guard let mount = SystemFile.read("/proc/self/mounts")?.split(separator: "\n")
                .first(where: { $0.split(separator: " ").dropFirst(2).first == "cgroup2" })?.split(separator: " ")[1],
              let own = SystemFile.read("/proc/self/cgroup")?.split(separator: "\n").first(where: { $0.hasPrefix("0::") })?.dropFirst(3)
        else { return nil }
        return "\(mount)\(own == "/" ? "" : own)"
    }

    /// deckd killed outright ends nothing itself (its hosts die with it, their orphans do not);
    /// the next deckd on the machine ends what the dead one left in its cgroups.
    @Test func whatAKilledRuntimeLeftIsEndedByTheNextOne() throws {
        // Both deckds run in a cgroup of their own: the deckds other tests start meanwhile would
        // otherwise end the orphan first, as any next runtime does.
        let group = SandboxTests.runnerCgroup().map { "\($0)/sandbox-test-\(getpid())" }
        let launcher = group.flatMap { mkdir($0, 0o755) == 0 ? SandboxTests.launcher(joining: $0) : nil } ?? []
        defer { if let group { rmdir(group) } }
        let scene = try Scene(launcher: launcher)
        let grandchild = try scene.grandchild()
        #expect(scene.deckd.stop(signal: SIGKILL, seconds: 5) != nil)
        usleep(200_000)
        #expect(SandboxTests.isRunning(grandchild), "an orphan of a killed deckd lives until the next one starts")
        let next = try DeckdProcess(["--plugins", scene.dir.path + "/plugins", "--socket", scene.dir.path + "/next.sock", "--state", "none",
                                     "--isolation", "process"], launcher: launcher)
        #expect(next.waitForLog("deckd: ready"), "\(next.log)")
        // Killed before "ready"; dead, it waits as a zombie until whoever inherited it reaps it.
        let deadline = Date().addingTimeInterval(5)
        while SandboxTests.isRunning(grandchild) && Date() < deadline { usleep(10_000) }
        if scene.hasCgroups {
            #expect(!SandboxTests.isRunning(grandchild), """
                the orphan \(grandchild) of the killed deckd is still alive: \((try? String(contentsOfFile: "/proc/\(grandchild)/stat", encoding: .utf8)) ?? "no stat")
                \(next.log)
                """)
        } else {
            // Without cgroups nothing records whose orphan it is: the guide says it lives on.
            #expect(SandboxTests.isRunning(grandchild))
            kill(grandchild, SIGKILL)
        }
        #expect(next.stop() == 0)
        if let group, !launcher.isEmpty {
            let left = ((try? FileManager.default.contentsOfDirectory(atPath: group)) ?? []).filter { $0.hasPrefix("deck-") }
            #expect(left.isEmpty, "the stopped deckd and the killed one it followed left cgroups behind: \(left)")
        }
    }

    /// A deckd in a pid namespace of its own sees another runtime's cgroup whose processes it
    /// cannot see (they read as pid 0): that runtime is alive elsewhere, and its group is left
    /// alone (it once made deckd signal pid 0, its own process group, and die).
    @Test func aGroupOfAnotherPidNamespaceIsNotStale() throws {
        let runner = try #require(SandboxTests.runnerCgroup())
        let elsewhere = try ChildProgram("/bin/sleep", ["60"])
        // Named after a live pid of this namespace, so the deckds other suites start meanwhile (in
        // this namespace) see a live owner; inside the new namespace that pid means nothing.
        let group = "\(runner)/deck-\(elsewhere.processIdentifier)-1"
        try #require(mkdir(group, 0o755) == 0 && mkdir(group + "/host-1", 0o755) == 0, "cgroups cannot be made here: \(group)")
        defer {
            kill(elsewhere.processIdentifier, SIGKILL)
            elsewhere.waitUntilExit()
            rmdir(group + "/host-1")
            rmdir(group)
            // The group the deckd made, named for its namespace, so no runtime out here ends it.
            for own in SandboxTests.groups(in: runner, prefix: "deck-1-1-ns") { SandboxTests.removeGroup(own) }
        }
        try "\(elsewhere.processIdentifier)".write(toFile: group + "/host-1/cgroup.procs", atomically: false, encoding: .utf8)
        let dir = TemporaryDirectory()
        let deckd = try DeckdProcess(["--plugins", Paths.corePlugins, "--socket", dir.path + "/s", "--state", "none", "--isolation", "process"],
                                     launcher: ["/usr/bin/unshare", "--pid", "--fork", "--kill-child", "--mount-proc"])
        #expect(deckd.waitForLog("deckd: ready"), "\(deckd.log)")
        #expect(deckd.process.isRunning)
        #expect(elsewhere.isRunning, "the other namespace's process was killed")
        #expect(deckd.stop(signal: SIGKILL, seconds: 5) != nil)  // unshare keeps the runner's blocked SIGTERM
    }

    /// A deckd in a pid namespace nested in this one names its group after its pid there, which
    /// may be free out here: a deckd starting out here in the same cgroup leaves that group and
    /// its hosts alone, as it belongs to a runtime alive in another namespace. Once that runtime
    /// and its namespace are gone, a later deckd removes the empty group (its hosts' groups when
    /// they are older than 10 s: a new one may be waiting for its host).
    @Test func aNestedNamespacesGroupIsNotStaleOutside() throws {
        // A cgroup of the test's own, so the deckds other tests start meanwhile do not look at the group.
        let group = try #require(SandboxTests.runnerCgroup()) + "/sandbox-nested-\(getpid())"
        try #require(mkdir(group, 0o755) == 0, "cgroups cannot be made here: \(group)")
        var inner: DeckdProcess?
        defer {
            _ = inner?.stop(signal: SIGKILL, seconds: 5)  // unshare keeps the runner's blocked SIGTERM
            // The killed runtime's group: its namespace is gone with it, its hosts too.
            for left in SandboxTests.groups(in: group, prefix: "deck-") { SandboxTests.removeGroup(left) }
            rmdir(group)
        }
        let joining = SandboxTests.launcher(joining: group)
        // Pids in the new namespace are handed out in order: after `free - 2` throwaway processes,
        // deckd gets `free`, a pid no process has out here.
        let free = try #require((300..<30_000).first { kill(pid_t($0), 0) != 0 && errno == ESRCH })
        let burn = #"n=2; while [ $n -lt "$0" ]; do /bin/true; n=$((n+1)); done; "$@" & wait"#
        let dir = TemporaryDirectory()
        inner = try DeckdProcess(["--plugins", Paths.corePlugins, "--socket", dir.path + "/inner.sock", "--state", "none", "--isolation", "process"],
                                 launcher: joining + ["/usr/bin/unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "/bin/sh", "-c", burn, "\(free)"])
        #expect(inner?.waitForLog("deckd: ready") == true, "\(inner?.log ?? "")")
        let innerGroups = SandboxTests.groups(in: group, prefix: "deck-")
        try #require(innerGroups.count == 1 && innerGroups[0].hasPrefix("\(group)/deck-\(free)-1-ns"), "the nested runtime's group: \(innerGroups)")
        let hosts = SandboxTests.groups(in: innerGroups[0], prefix: "host-").flatMap { SandboxTests.members(of: $0) }
        try #require(!hosts.isEmpty && kill(pid_t(free), 0) != 0, "hosts \(hosts) in \(innerGroups[0]); pid \(free) taken out here")
        func outerRun() throws -> DeckdProcess {
            let outer = try DeckdProcess(["--plugins", Paths.corePlugins, "--socket", dir.path + "/outer.sock", "--state", "none",
                                          "--isolation", "process"], launcher: joining)
            #expect(outer.waitForLog("deckd: ready"), "\(outer.log)")
            #expect(outer.stop() == 0)
            #expect(SandboxTests.groups(in: group, prefix: "deck-").allSatisfy(innerGroups.contains), "the stopped deckd left its group behind")
            return outer
        }
        let outer = try outerRun()
        #expect(hosts.allSatisfy(SandboxTests.isRunning), "the nested runtime's hosts \(hosts) were killed\n\(outer.log)")
        #expect(FileManager.default.fileExists(atPath: innerGroups[0]), "the nested runtime's group was removed")
        #expect(inner?.stop(signal: SIGKILL, seconds: 5) != nil)
        SandboxTests.waitUntilEmpty(SandboxTests.groups(in: innerGroups[0], prefix: "host-"))
        _ = try outerRun()
        #expect(FileManager.default.fileExists(atPath: innerGroups[0]), "host groups made in the last 10 s were removed")
        for host in SandboxTests.groups(in: innerGroups[0], prefix: "host-") {
            var aged = [timeval(tv_sec: time(nil) - 60, tv_usec: 0), timeval(tv_sec: time(nil) - 60, tv_usec: 0)]
            try #require(utimes(host, &aged) == 0, "\(host): \(String(cString: strerror(errno)))")
        }
        _ = try outerRun()
        #expect(SandboxTests.groups(in: group, prefix: "deck-").isEmpty, "the group of a runtime gone with its namespace was left behind")
    }

    /// A running deckd whose group something removed (an older runtime that took it for a dead
    /// one's) makes it again for its next host, which gets a cgroup as before.
    @Test func aRemovedGroupIsMadeAgainForTheNextHost() throws {
        let runner = try #require(SandboxTests.runnerCgroup())
        let dir = TemporaryDirectory()
        let plugins = dir.path + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        let app = try Fixture.app(in: plugins, "Victim", id: "org.deck.test.victim")
        let deckd = try DeckdProcess(["--plugins", plugins, "--socket", dir.path + "/s", "--state", "none", "--isolation", "process"])
        #expect(deckd.waitForLog("deckd: ready"), "\(deckd.log)")
        let own = try #require(SandboxTests.groups(in: runner, prefix: "deck-\(deckd.process.processIdentifier)-").first, "\(deckd.log)")
        let client = LineClient(path: dir.path + "/s")
        #expect(client.call("apps.unload", #"{"id":"org.deck.test.victim"}"#)?.contains(#""result":true"#) == true)
        let deadline = Date().addingTimeInterval(5)
        while !SandboxTests.groups(in: own, prefix: "host-").isEmpty && Date() < deadline { usleep(10_000) }
        try #require(rmdir(own) == 0, "\(own): \(String(cString: strerror(errno)))")
        let loaded = client.call("apps.load", #"{"path":"\#(app)"}"#, id: 2)
        #expect(loaded?.contains(#""result""#) == true, "\(loaded ?? "no answer")")
        let hosts = SandboxTests.groups(in: own, prefix: "host-")
        #expect(hosts.count == 1 && hosts.allSatisfy { !SandboxTests.members(of: $0).isEmpty }, "the new host's groups: \(hosts)\n\(deckd.log)")
        #expect(deckd.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: own), "the stopped deckd left \(own)")
    }

    /// The folders in `folder` whose names start with `prefix`, as paths.
    static func groups(in folder: String, prefix: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(prefix) }.sorted().map { "\(folder)/\($0)" }
    }

    /// The pids in a cgroup.
    static func members(of group: String) -> [pid_t] {
        (SystemFile.read(group + "/cgroup.procs") ?? "").split(separator: "\n").compactMap { pid_t($0) }
    }

    /// Removes a group its runtime left, and its hosts' groups, once their processes are gone.
    static func removeGroup(_ group: String) {
        let hosts = groups(in: group, prefix: "host-")
        waitUntilEmpty(hosts)
        for host in hosts { rmdir(host) }
        rmdir(group)
    }

    /// Waits up to 5 s for the processes in `groups` to be gone.
    static func waitUntilEmpty(_ groups: [String]) {
        let deadline = Date().addingTimeInterval(5)
        while groups.contains(where: { !members(of: $0).isEmpty }) && Date() < deadline { usleep(10_000) }
    }

    /// A launcher that moves the deckd it starts into `group` first.
    static func launcher(joining group: String) -> [String] {
        ["/bin/sh", "-c", #"echo $$ > "$0/cgroup.procs" && exec "$@""#, group]
    }
}
