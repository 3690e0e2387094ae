import CProcess
import Glibc

/// A subreaper's adopted children. deckd and each plugin's host are subreapers: a process whose
/// parent ended, a `setsid` orphan included, becomes the nearest one's child instead of init's,
/// so a plugin's orphan stays in its host's tree while the host lives, and in deckd's after.
public enum AdoptedOrphans {
    /// Makes this process a subreaper; false where the kernel refuses.
    public static func adopt() -> Bool { deck_set_child_subreaper() == 0 }

    /// Reaps each ended child that no ChildProcess watches and that is outside this process's
    /// group (an inline plugin's own children stay in it, for the plugin to wait for); how many.
    @discardableResult
    public static func reap() -> Int {
        orphans().filter { $0.state == "Z" && waitpid($0.pid, nil, WNOHANG) == $0.pid }.count
    }

    /// A host's sweep: its children that have ended, found through /proc/self and `waitid` (a
    /// sandboxed host cannot read their /proc files), are reaped when `foundBefore`, the previous
    /// sweep's answer, holds them too: a plugin waiting for a child of its own reaps it first, and
    /// what it left to the host (an orphan adopted, a helper nobody waits for) is not kept a
    /// zombie. Returns the children found ended and not reaped, and how many were reaped.
    public static func reapLingering(foundBefore: Set<pid_t>) -> (ended: Set<pid_t>, reaped: Int) {
        var ended = Set<pid_t>(), reaped = 0
        for child in ProcessEntry.ownChildren() where deck_child_ended(child) == 1 {
            if foundBefore.contains(child) && waitpid(child, nil, WNOHANG) == child { reaped += 1 } else { ended.insert(child) }
        }
        return (ended, reaped)
    }

    /// Kills the adopted children still running, without waiting (a later `reap` takes them);
    /// how many. For deckd's sweep while no plugin runs inline: each is then the orphan of a host
    /// that ended, or of a plugin that cleared its host's subreaper flag.
    @discardableResult
    public static func killRunning() -> Int {
        orphans().filter { $0.state != "Z" && kill($0.pid, SIGKILL) == 0 }.count
    }

    /// Kills and reaps the orphans adopted and still running (a host that crashed left its
    /// plugin's to deckd), and theirs, adopted in turn; for deckd's end, after every host was
    /// ended. How many were killed.
    @discardableResult
    public static func endAll() -> Int {
        reap()
        return end { orphans().filter { $0.state != "Z" }.map(\.pid) }
    }

    /// Kills and reaps every child of this process, and theirs, adopted in turn: for a host's
    /// end, whose plugin's processes end with it. Reads only /proc/self (the host's sandbox).
    /// Children that had ended already are reaped, not counted.
    @discardableResult
    public static func endChildren() -> Int {
        end { ProcessEntry.ownChildren().filter { !(deck_child_ended($0) == 1 && waitpid($0, nil, WNOHANG) == $0) } }
    }

    /// Kills `children()` and reaps them, round after round while a round finds some (at most 8,
    /// each waiting up to a second for its dead); how many were signalled.
    private static func end(_ children: () -> [pid_t]) -> Int {
        var signalled = 0
        for _ in 0..<8 {
            var pending = Set(children())
            guard !pending.isEmpty else { break }
            pending.forEach { kill($0, SIGKILL) }
            signalled += pending.count
            for _ in 0..<100 where !pending.isEmpty {
                pending = pending.filter { waitpid($0, nil, WNOHANG) == 0 }
                if !pending.isEmpty { usleep(10_000) }
            }
        }
        return signalled
    }

    /// This process's children that are not a ChildProcess's nor in its own group.
    private static func orphans() -> [ProcessEntry] {
        let ownGroup = getpgrp()
        return ProcessEntry.children(of: getpid()).filter { !ChildProcess.isWatched($0) }
            .compactMap(ProcessEntry.init).filter { $0.processGroup != ownGroup }
    }
}
