import DeckTestSupport
import Foundation
import Testing
@testable import DeckBase

/// A plugin's process is known by its host's uid, by descending from a host (or, for deckd, from
/// the runtime), or by its host's cgroup, which even a `setsid` orphan that init adopted cannot leave.
@Suite struct PluginProcessesTests {
    /// A `sleep` started by this process, ended and reaped when the test ends.
    final class Sleeper {
        let process: ChildProgram
        var pid: pid_t { process.processIdentifier }

        init() throws { process = try ChildProgram("/bin/sleep", ["30"]) }

        deinit {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }

    @Test func aHostsUidOrAncestryMarksAProcess() throws {
        let child = try Sleeper()
        let uid = getuid()
        #expect(PluginProcesses(uids: uid...uid, cgroups: nil).owner(of: child.pid, uid: uid) == "process \(child.pid) runs as uid \(uid), a plugin's")
        #expect(PluginProcesses(uids: nil, cgroups: nil).owner(of: child.pid, uid: uid) == "process \(child.pid) descends from deckd: a plugin's")
        #expect(PluginProcesses(uids: nil, hosts: [getpid()], cgroups: nil).owner(of: child.pid, uid: uid)
                == "process \(child.pid) is a plugin's host or one it started")
        #expect(PluginProcesses(uids: nil, hosts: [], cgroups: nil).owner(of: child.pid, uid: uid) == nil, "no host among its ancestors")
        #expect(PluginProcesses(uids: nil, hosts: [], cgroups: nil).owner(of: getpid(), uid: uid) == nil)
    }

    @Test func aProcessInAHostsCgroupIsAPluginsWhateverItsAncestry() throws {
        let own = try #require(Cgroup.folder(), "a cgroup v2 hierarchy is mounted")
        let hosts = own + "/deck-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))", group = hosts + "/host-1"
        try #require(mkdir(hosts, 0o755) == 0 && mkdir(group, 0o755) == 0, "this process may make cgroups (root, or a delegated group)")
        let child = try Sleeper()
        defer {
            kill(child.pid, SIGKILL)
            child.process.waitUntilExit()
            #expect(rmdir(group) == 0 && rmdir(hosts) == 0, "the test's groups are removed: \(String(cString: strerror(errno)))")
        }
        try "\(child.pid)".write(toFile: group + "/cgroup.procs", atomically: false, encoding: .utf8)
        #expect(Cgroup.folder(of: child.pid) == group)
        #expect(Cgroup.members(within: hosts) == [child.pid])
        let marks = PluginProcesses(uids: nil, hosts: [], cgroups: hosts)
        #expect(marks.owner(of: child.pid, uid: getuid()) == "process \(child.pid) is in a plugin's cgroup (\(group))")
        #expect(marks.owner(of: getpid(), uid: getuid()) == nil, "the runtime's own group is not a host's")
        #expect(PluginProcesses(uids: nil, hosts: [], cgroups: hosts + "-other").owner(of: child.pid, uid: getuid()) == nil,
                "a group whose name merely starts the same is another")
    }
}
