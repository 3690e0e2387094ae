import Glibc

/// What marks a process on this machine as a plugin's, so that it is refused what only the
/// integrator's clients may have: the control socket, the car's audio.
public struct PluginProcesses: Sendable {
    /// The uids hosts run as (the runtime as root); nil when they run on the runtime's own. Every
    /// process of a plugin runs as its host's uid: when set, it alone decides.
    public var uids: ClosedRange<UInt32>?
    /// The hosts' processes; nil for every process descending from this one (deckd, which starts
    /// no other processes).
    public var hosts: [pid_t]?
    /// The folder of the hosts' cgroups: what a host starts stays in its group, a `setsid` orphan
    /// that init adopted included.
    public var cgroups: String?

    public init(uids: ClosedRange<UInt32>?, hosts: [pid_t]? = nil, cgroups: String?) {
        self.uids = uids
        self.hosts = hosts
        self.cgroups = cgroups
    }

    /// What the reason ends with where a plugin is refused a way into the runtime.
    public static let throughTheHost = "; plugins reach the runtime only through their host"

    /// Why process `pid`, running as `uid`, is a plugin's; nil when it is not.
    public func owner(of pid: pid_t, uid: uid_t) -> String? {
        if let uids { return uids.contains(uid) ? "process \(pid) runs as uid \(uid), a plugin's" : nil }
        var ancestor = pid
        for _ in 0..<64 {
            if let hosts, hosts.contains(ancestor) { return "process \(pid) is a plugin's host or one it started" }
            guard let parent = ProcessEntry(ancestor)?.parent, parent > 1 else { break }
            if hosts == nil && parent == getpid() { return "process \(pid) descends from deckd: a plugin's" }
            ancestor = parent
        }
        return inGroup(pid).map { "process \(pid) is in a plugin's cgroup (\($0))" }
    }

    /// Why the TCP peer `remote` of our end `local` is a plugin's: its socket belongs to a host's
    /// uid, or a plugin's process holds it. Nil for anyone else, or when the kernel's table does
    /// not name it.
    public func owner(local: SocketAddress, remote: SocketAddress) -> String? {
        LoopbackPeer.socket(local: local, peer: remote).flatMap { owner(of: $0, named: "\(remote)") }
    }

    /// Why `socket` (`name`, its uid and inode as the kernel names them) is a plugin's: it belongs
    /// to a host's uid, or a plugin's process holds it. Nil for anyone else.
    public func owner(of socket: (uid: uid_t, inode: UInt64), named name: String) -> String? {
        if let uids { return uids.contains(socket.uid) ? "\(name) belongs to uid \(socket.uid), a plugin's" : nil }
        let related = hosts.map { $0 + $0.flatMap(LoopbackPeer.descendants(of:)) } ?? LoopbackPeer.descendants(of: getpid())
        if let holder = related.first(where: { LoopbackPeer.holds($0, socket: socket.inode) }) {
            return "\(name) belongs to process \(holder), " + (hosts == nil ? "which descends from deckd: a plugin's" : "a plugin's host or one it started")
        }
        guard let cgroups else { return nil }
        let grouped = Cgroup.members(within: cgroups).filter { !related.contains($0) }
        return grouped.first { LoopbackPeer.holds($0, socket: socket.inode) }.map { "\(name) belongs to process \($0), in a plugin's cgroup" }
    }

    /// The hosts' group `pid` is in, or nil.
    private func inGroup(_ pid: pid_t) -> String? {
        guard let cgroups, let folder = Cgroup.folder(of: pid), AbsolutePath.path(folder, isWithin: cgroups) else { return nil }
        return folder
    }
}
