import DeckBase
import DeckTestSupport
import Foundation
import Testing
@testable import DeckIsolation

/// On the runtime's uid without cgroups, a host's descendants are what marks its plugin's
/// processes: they are killed while the host lives.
@Suite struct HostRemainsTests {
    /// A shell leading its group, with a child and a grandchild it waits for; its pid file names the grandchild.
    private func host(_ loop: EventLoop, writing file: String) throws -> ChildProcess {
        try ChildProcess(loop: loop, path: "/bin/sh",
                         arguments: ["-c", #"/bin/sh -c 'sleep 300 & echo $! > "$0"; wait' "$0" & wait"#, file], descriptors: [])
    }

    private func grandchild(_ file: String) -> pid_t {
        for _ in 0..<500 {
            if let pid = pid_t((try? String(contentsOfFile: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") { return pid }
            usleep(10_000)
        }
        return 0
    }

    private func isRunning(_ pid: pid_t) -> Bool { ProcessEntry(pid).map { $0.state != "Z" } ?? false }

    private func waitUntilDead(_ pid: pid_t) -> Bool {
        for _ in 0..<500 where isRunning(pid) { usleep(10_000) }
        return !isRunning(pid)
    }

    @Test func theHostsDescendantsAreKilledWhileItLives() throws {
        let loop = try EventLoop(), dir = TemporaryDirectory()
        let host = try host(loop, writing: dir.path + "/pid")
        let sleeper = grandchild(dir.path + "/pid")
        try #require(sleeper > 0)
        let children = ProcessEntry.children(of: host.pid)
        #expect(children.count == 1 && ProcessEntry.descendants(of: host.pid) == children + [sleeper])
        HostRemains(uid: 0, processGroup: host.pid).endDescendants(of: host)
        #expect(waitUntilDead(sleeper) && waitUntilDead(children[0]))
        host.close()
    }

    @Test func nothingIsKilledHereWhereAUidOfItsOwnMarksTheHostsProcesses() throws {
        let loop = try EventLoop(), dir = TemporaryDirectory()
        let host = try host(loop, writing: dir.path + "/pid")
        let sleeper = grandchild(dir.path + "/pid")
        try #require(sleeper > 0)
        HostRemains(uid: 61_234, processGroup: host.pid).endDescendants(of: host)
        usleep(100_000)
        #expect(isRunning(sleeper), "a uid of its own marks the host's processes: end() kills them by it")
        kill(sleeper, SIGKILL)
        host.close()
    }
}
