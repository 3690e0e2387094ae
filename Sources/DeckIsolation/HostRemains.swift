import DeckBase
import Glibc

/// Everything a plugin's host may leave running, ended with the plugin: its cgroup where it has
/// one (everything, at once), else every process of its uid when it runs as one of its own, else
/// its descendants and its process group. The host is its plugin's subreaper, so while it lives
/// a `setsid` orphan is among its descendants; ending normally, it ends them itself.
struct HostRemains {
    /// 0: the runtime's uid.
    var uid: UInt32
    /// The host's pid: it leads its group.
    var processGroup: pid_t
    /// The host's group and the groups it is one of.
    var cgroup: (path: String, groups: HostCgroups)?

    func end() {
        if let cgroup {
            cgroup.groups.end(cgroup.path)
        } else if uid != 0 {
            // A fork between a scan and its kills survives one pass (killed processes are still
            // listed until reaped, so a pass that kills some is not proof of a fork).
            for _ in 0..<3 where ChildProcess.killAll(ownedBy: uid) > 0 {}
        } else if processGroup > 1 {  // -0 would be the runtime's own group, -1 every process it may signal
            kill(-processGroup, SIGKILL)
        }
    }

    /// Where neither a cgroup nor a uid of its own marks the host's processes, kills its
    /// descendants: before the host is killed or closed, since once it ends they are the runtime's
    /// orphans, no longer known as this plugin's. Not once `host` is reaped (its pid may be reused).
    func endDescendants(of host: ChildProcess) {
        guard cgroup == nil, uid == 0, host.isRunning, host.pid == processGroup else { return }
        var signalled: Set<pid_t> = []
        // A process forking while it is killed leaves its child to the host, found by the next pass.
        for _ in 0..<8 {
            let fresh = ProcessEntry.descendants(of: host.pid).filter { !signalled.contains($0) }
            guard !fresh.isEmpty else { return }
            fresh.forEach { kill($0, SIGKILL) }
            signalled.formUnion(fresh)
        }
    }
}
