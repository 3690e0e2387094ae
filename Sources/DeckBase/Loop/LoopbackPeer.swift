import CProcess
import Glibc

/// Who holds the other end of a TCP connection made on this machine: the kernel (sock_diag, else
/// /proc/net/tcp) names its uid and socket inode, and a process whose descriptors hold that inode
/// is its owner.
public enum LoopbackPeer {
    /// The uid and inode of the socket whose local end is `peer` and remote end `local` (our end):
    /// one sock_diag lookup, or where the kernel offers none, its whole table read.
    public static func socket(local: SocketAddress, peer: SocketAddress) -> (uid: uid_t, inode: UInt64)? {
        let asked = lookup(local: local, peer: peer)
        return asked.answered ? asked.socket : tableEntry(local: local, peer: peer)
    }

    /// What sock_diag says: the socket, or nil when there is none; not `answered` when the kernel
    /// offers no sock_diag (no `inet_diag`).
    static func lookup(local: SocketAddress, peer: SocketAddress) -> (answered: Bool, socket: (uid: uid_t, inode: UInt64)?) {
        var uid: uid_t = 0, inode: UInt64 = 0
        let status = peer.withSockaddr { source in local.withSockaddr { deck_tcp_socket_owner(source, $0, &uid, &inode) } }
        return status == 0 ? (true, (uid, inode)) : (errno == ENOENT, nil)
    }

    /// The same from /proc/net/tcp (tcp6): every socket of the machine, printed and parsed.
    static func tableEntry(local: SocketAddress, peer: SocketAddress) -> (uid: uid_t, inode: UInt64)? {
        let table = peer.isIPv6 ? "/proc/net/tcp6" : "/proc/net/tcp"
        guard let text = SystemFile.read(table) else { return nil }
        let (wantLocal, wantRemote) = (peer.kernelTableKey, local.kernelTableKey)
        for line in text.split(separator: "\n").dropFirst() {
            // sl local rem st tx:rx tr:when retrnsmt uid timeout inode …
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[1] == wantLocal, fields[2] == wantRemote,
                  let uid = uid_t(fields[7]), let inode = UInt64(fields[9]) else { continue }
            return (uid, inode)
        }
        return nil
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
