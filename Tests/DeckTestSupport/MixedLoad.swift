import DeckRuntime
import Foundation

/// Heavy mixed load on the machine at normal priority (`scripts/mixed-load.sh`, which deck-bench
/// also runs) until `stop`. Started as a `ChildProcess`: in a process group of its own, with no
/// signal blocked, so one kill ends all of it.
public final class MixedLoad {
    private let loop: EventLoop
    private let process: ChildProcess

    public init() throws {
        loop = try EventLoop()
        process = try ChildProcess(loop: loop, path: "/bin/sh", arguments: [Paths.repoRoot + "/scripts/mixed-load.sh"], descriptors: [])
    }

    /// Ends the load and every process of it.
    public func stop() {
        kill(-process.pid, SIGKILL)
        process.close()
    }

    deinit { stop() }
}
