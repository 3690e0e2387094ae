import DeckBase
import Glibc

/// Everything a plugin's host may leave running, ended with the plugin: its cgroup where it has
/// one (everything, at once), else every process of its uid when it runs as one of its own, else
/// its process group (which plain forks stay in; a `setsid` child leaves it).
struct HostRemains {
    /// 0: the runtime's uid.
    var uid: UInt32
    var processGroup: pid_t
    var cgroup: String?
    var cgroups: HostCgroups

    func end() {
        if let cgroup {
            cgroups.end(cgroup)
        } else if uid != 0 {
            // A fork between a scan and its kills survives one pass (killed processes are still
            // listed until reaped, so a pass that kills some is not proof of a fork).
            for _ in 0..<3 where ChildProcess.killAll(ownedBy: uid) > 0 {}
        } else if processGroup > 1 {  // -0 would be the runtime's own group, -1 every process it may signal
            kill(-processGroup, SIGKILL)
        }
    }
}
