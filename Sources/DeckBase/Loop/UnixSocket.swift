import Glibc

/// Blocking Unix-domain stream connections for clients (deckctl, benches) and start-up probes;
/// never used on a running loop, which has `StreamServer` and `StreamConnection`.
public enum UnixSocket {
    /// The longest path a socket address holds, in bytes (without the terminating NUL).
    public static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// deckd's control socket unless told otherwise: `$XDG_RUNTIME_DIR/deck.sock`, else
    /// `/tmp/deck-$UID.sock`.
    public static var defaultControlPath: String {
        controlPath(runtimeDirectory: getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }, uid: getuid())
    }

    /// The default path for a runtime folder and a uid. A relative folder is passed over, as the
    /// XDG spec asks: deckd and its clients, started in different folders, would not meet.
    static func controlPath(runtimeDirectory: String?, uid: uid_t) -> String {
        if let folder = runtimeDirectory, folder.hasPrefix("/") { return folder + "/deck.sock" }
        return "/tmp/deck-\(uid).sock"
    }

    /// The socket of deckd run as a system service (deckd.service's `--socket`).
    public static let serviceControlPath = "/run/deck/deck.sock"

    /// Where a client finds deckd unless told: the default path, or the service's socket when only
    /// that one exists.
    public static var clientControlPath: String {
        let own = defaultControlPath
        return access(own, F_OK) != 0 && access(serviceControlPath, F_OK) == 0 ? serviceControlPath : own
    }

    /// Connects to the socket at `path`: the connected descriptor (close-on-exec), or the reason.
    /// A `timeoutMilliseconds` over 0 bounds the connect and every later send: a server that
    /// takes no new connections (its queue full, the process stopped) fails it rather than hangs it.
    public static func connect(_ path: String, timeoutMilliseconds: Int = 0) -> Result<Int32, UnixSocketError> {
        guard path.utf8.count <= maxPathBytes else { return .failure(.pathTooLong(path.utf8.count, maxPathBytes)) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(.system(String(cString: strerror(errno)))) }
        if timeoutMilliseconds > 0 {
            var limit = timeval(tv_sec: timeoutMilliseconds / 1000, tv_usec: timeoutMilliseconds % 1000 * 1000)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard status == 0 else {
            let reason = switch errno {
            case ECONNREFUSED: refusal(at: path)
            case EAGAIN: "not accepted within \(timeoutMilliseconds % 1000 == 0 ? "\(timeoutMilliseconds / 1000) s" : "\(timeoutMilliseconds) ms"): "
                + "the server takes no new connections (is it stopped or stuck?)"
            default: String(cString: strerror(errno))
            }
            close(fd)
            return .failure(.system(reason))
        }
        return .success(fd)
    }

    /// What a refused connection means here: a socket no process serves, or no socket at all.
    private static func refusal(at path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "Connection refused" }
        switch info.st_mode & S_IFMT {
        case S_IFSOCK: return "Connection refused (no process serves this socket: the deckd that made it has stopped)"
        case S_IFDIR: return "it is a folder, not a socket"
        default: return "it is a file, not a socket"
        }
    }
}

/// Why a Unix socket could not be connected.
public enum UnixSocketError: Error, Equatable, Sendable, CustomStringConvertible {
    case pathTooLong(Int, Int)
    case system(String)

    public var description: String {
        switch self {
        case .pathTooLong(let bytes, let limit): "the path is \(bytes) bytes; a Unix socket path must be at most \(limit)"
        case .system(let reason): reason
        }
    }
}
