import DeckRuntime
import Glibc

extension ControlServer {
    /// Why a local peer may not be a client: a plugin's process (its uid is a host's, or deckd is
    /// among its ancestors: deckd starts no other processes). Plugins reach the runtime only
    /// through their host ABI. Nil for anyone else.
    func pluginPeer(_ stream: StreamConnection) -> String? {
        if let local = stream.localAddress, let remote = stream.peerAddress {
            return remote.isLoopback ? pluginPeer(local: local, remote: remote) : nil
        }
        guard let peer = stream.peerCredentials else { return nil }
        if let pluginUIDs, pluginUIDs.contains(peer.uid) {
            return "process \(peer.pid) runs as uid \(peer.uid), a plugin's" + ControlServer.throughTheHost
        }
        var pid = peer.pid
        for _ in 0..<64 {
            guard let parent = ControlServer.parent(of: pid), parent > 1 else { return nil }
            if parent == getpid() { return "process \(peer.pid) descends from deckd: a plugin's" + ControlServer.throughTheHost }
            pid = parent
        }
        return nil
    }

    /// The same for a TCP client on this machine.
    func pluginPeer(local: SocketAddress, remote: SocketAddress) -> String? {
        LoopbackPeer.pluginOwner(local: local, remote: remote, pluginUIDs: pluginUIDs).map { $0 + ControlServer.throughTheHost }
    }

    /// What a refused plugin's reason ends with.
    static let throughTheHost = "; plugins reach the runtime only through their host"

    /// A process's parent, from /proc/PID/stat (the field after the command, which may hold spaces).
    private static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = SystemFile.read("/proc/\(pid)/stat", limit: 1024), let command = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: command)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }
}
