import CProcess
import Glibc

/// Who holds the other end of a TCP connection made on this machine, or the socket a datagram
/// sent to this machine reaches: the kernel (sock_diag, else /proc/net/tcp or udp) names its uid
/// and socket inode, and a process whose descriptors hold that inode is its owner.
public enum LoopbackPeer {
    /// The uid and inode of the socket whose local end is `peer` and remote end `local` (our end):
    /// one sock_diag lookup, or where the kernel offers none, its whole table read.
    public static func socket(local: SocketAddress, peer: SocketAddress) -> (uid: uid_t, inode: UInt64)? {
        let asked = lookup(transport: Int32(IPPROTO_TCP), source: peer, destination: local)
        return asked.answered ? asked.socket : tcpTableEntry(local: local, peer: peer)
    }

    /// The uid and inode of the socket on this machine that a datagram from `sender` to `target`
    /// reaches (one bound to `target`, else to its port on every address), or nil for none.
    /// Asked through `diagnostics` when given (one that asks at every packet keeps one).
    public static func datagramReceiver(sender: SocketAddress, target: SocketAddress,
                                        through diagnostics: SocketDiagnostics? = nil) -> (uid: uid_t, inode: UInt64)? {
        let asked = lookup(transport: Int32(IPPROTO_UDP), source: sender, destination: target, through: diagnostics)
        return asked.answered ? asked.socket : udpTableEntry(target: target)
    }

    /// What sock_diag says: the socket, or nil when there is none; not `answered` when the kernel
    /// offers no sock_diag for the transport (no `inet_diag`, `udp_diag`).
    static func lookup(transport: Int32, source: SocketAddress, destination: SocketAddress,
                       through diagnostics: SocketDiagnostics? = nil) -> (answered: Bool, socket: (uid: uid_t, inode: UInt64)?) {
        var uid: uid_t = 0, inode: UInt64 = 0
        let netlink = diagnostics?.descriptor ?? -1
        let status = source.withSockaddr { source in destination.withSockaddr { deck_socket_owner(netlink, transport, source, $0, &uid, &inode) } }
        return status == 0 ? (true, (uid, inode)) : (errno == ENOENT, nil)
    }

    /// The connection from /proc/net/tcp (tcp6). A dual-stack listener's IPv4 peer (both ends
    /// IPv4-mapped) holds an IPv4 socket, listed in /proc/net/tcp.
    static func tcpTableEntry(local: SocketAddress, peer: SocketAddress) -> (uid: uid_t, inode: UInt64)? {
        if let local = local.unmapped, let peer = peer.unmapped { return tcpTableEntry(local: local, peer: peer) }
        let (wantLocal, wantRemote) = (peer.kernelTableKey, local.kernelTableKey)
        return tableEntry(peer.isIPv6 ? "/proc/net/tcp6" : "/proc/net/tcp") { $0 == wantLocal && $1 == wantRemote ? 0 : nil }
    }

    /// The receiver from /proc/net/udp (udp6): the socket bound to `target`, else to its port on
    /// every address.
    static func udpTableEntry(target: SocketAddress) -> (uid: uid_t, inode: UInt64)? {
        let table = target.isIPv6 ? "/proc/net/udp6" : "/proc/net/udp"
        let exact = target.kernelTableKey
        let everyAddress = String(repeating: "0", count: target.isIPv6 ? 32 : 8) + exact.drop { $0 != ":" }
        return tableEntry(table) { local, _ in local == exact ? 0 : local == everyAddress ? 1 : nil }
    }

    /// The socket of a /proc/net table (tcp, tcp6, udp, udp6: every socket of the machine, printed
    /// and parsed, once) whose local and remote ends `rank` ranks best (0 first; nil: not at all).
    static func tableEntry(_ table: String, ranking rank: (Substring, Substring) -> Int?) -> (uid: uid_t, inode: UInt64)? {
        guard let text = SystemFile.read(table) else { return nil }
        var best: (rank: Int, socket: (uid: uid_t, inode: UInt64))?
        for line in text.split(separator: "\n").dropFirst() {
            // sl local rem st tx:rx tr:when retrnsmt uid timeout inode …
            let fields = line.split(separator: " ")
            guard fields.count > 9, let found = rank(fields[1], fields[2]), found < best?.rank ?? .max,
                  let uid = uid_t(fields[7]), let inode = UInt64(fields[9]) else { continue }
            best = (found, (uid, inode))
            if found == 0 { break }
        }
        return best?.socket
    }

    /// The processes that descend from `root`, through /proc/PID/task/TID/children.
    static func descendants(of root: pid_t) -> [pid_t] {
        var found: [pid_t] = [], queue = [root]
        while let pid = queue.popLast(), found.count < 100_000 {
            let children = ProcessEntry.children(of: pid)
            found += children
            queue += children
        }
        return found
    }

    /// Whether process `pid` has socket `inode` among its descriptors.
    static func holds(_ pid: pid_t, socket inode: UInt64) -> Bool {
        let folder = "/proc/\(pid)/fd", wanted = "socket:[\(inode)]"
        var target = [CChar](repeating: 0, count: 64)
        return (FolderEntries.names(in: folder) ?? []).contains { name in
            let count = readlink("\(folder)/\(name)", &target, target.count - 1)
            return count > 0 && String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) == wanted
        }
    }
}
