import DeckRuntime
import Glibc

extension ControlServer {
    /// Why a local peer may not be a client: a plugin's process (its uid is a host's, deckd is
    /// among its ancestors, or it is in a host's cgroup). Plugins reach the runtime only through
    /// their host ABI. Nil for anyone else.
    func pluginPeer(_ stream: StreamConnection) -> String? {
        if let local = stream.localAddress, let remote = stream.peerAddress {
            return remote.isOnThisMachine(connectedTo: local) ? pluginPeer(local: local, remote: remote) : nil
        }
        guard let peer = stream.peerCredentials else { return nil }
        return pluginProcesses().owner(of: peer.pid, uid: peer.uid).map { $0 + PluginProcesses.throughTheHost }
    }

    /// The same for a TCP client on this machine.
    func pluginPeer(local: SocketAddress, remote: SocketAddress) -> String? {
        pluginProcesses().owner(local: local, remote: remote).map { $0 + PluginProcesses.throughTheHost }
    }
}
