import Glibc

/// `deckctl`: the control CLI. It speaks to `deckd` over the control socket only.
enum ControlClient {
    static let version = "0.1.0"

    static let usage = """
        usage: deckctl [--socket PATH] [--json] COMMAND [ARGS...]

        Controls a running deckd over its control socket
        (default: $XDG_RUNTIME_DIR/deck.sock, else /tmp/deck-$UID.sock).

        Exit status: 0 success, 1 runtime error, 2 usage error, 3 cannot connect.
        """

    static func run(_ arguments: [String]) -> Int32 {
        var socketPath = defaultSocketPath()
        var rest = arguments.dropFirst()
        while let argument = rest.first, argument.hasPrefix("-") {
            rest.removeFirst()
            switch argument {
            case "--help", "-h": print(usage); return 0
            case "--version": print("deckctl \(version)"); return 0
            case "--json": break
            case "--socket":
                guard let path = rest.popFirst() else { return usageError("--socket needs a path") }
                socketPath = path
            default: return usageError("unknown option \(argument)")
            }
        }
        guard let command = rest.first else { return usageError("no command given") }
        let fd = connectUnix(socketPath)
        guard fd >= 0 else {
            printError("deckctl: cannot connect to \(socketPath): \(String(cString: strerror(errno)))\n"
                + "Is deckd running? Start it with `deckd` (or `make run`), or pass --socket PATH.")
            return 3
        }
        close(fd)
        return usageError("unknown command \(command)")
    }

    /// `$XDG_RUNTIME_DIR/deck.sock`, else `/tmp/deck-$UID.sock`, as deckd chooses.
    static func defaultSocketPath() -> String {
        if let dir = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !dir.isEmpty { return dir + "/deck.sock" }
        return "/tmp/deck-\(getuid()).sock"
    }

    private static func connectUnix(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            errno = ENAMETOOLONG
            return -1
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if status != 0 {
            let saved = errno
            close(fd)
            errno = saved
            return -1
        }
        return fd
    }

    private static func usageError(_ message: String) -> Int32 {
        printError("deckctl: \(message)\nTry 'deckctl --help' for more information.")
        return 2
    }

    private static func printError(_ message: String) {
        _ = (message + "\n").utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}
