import CProcess
import DeckBase
import Glibc

/// deckd is its descendants' subreaper: a plugin's process whose parent ended, a `setsid` orphan
/// included, becomes deckd's child instead of init's, so that it still descends from deckd and
/// is refused as a plugin's. Those children are reaped here once they end.
enum AdoptedOrphans {
    /// Makes deckd the subreaper; false where the kernel refuses.
    static func adopt() -> Bool { deck_set_child_subreaper() == 0 }

    /// Reaps each ended child that no ChildProcess watches and that is outside deckd's process
    /// group (an inline plugin's own children stay in it, for the plugin to wait for); how many.
    @discardableResult
    static func reap() -> Int {
        let ownGroup = getpgrp()
        var reaped = 0
        for pid in ProcessEntry.children(of: getpid()) where !ChildProcess.isWatched(pid) {
            guard let child = ProcessEntry(pid), child.state == "Z", child.processGroup != ownGroup else { continue }
            if waitpid(pid, nil, WNOHANG) == pid { reaped += 1 }
        }
        return reaped
    }
}
