import CProcess
import DeckBase
import Glibc

/// `deck-plugin-host --zygote`, started once per runtime: a host process linked and initialised
/// once, that forks each plugin's host on request (as Android's zygote forks its apps), so a host
/// starts without exec or dynamic linking. Forked with CLONE_PARENT, each host is the runtime's
/// own child, watched and reaped as one it spawned. Loop-thread-confined.
final class HostZygote {
    private let process: ChildProcess
    /// A SOCK_SEQPACKET socket: a request (the host's arguments and its four descriptors) and the
    /// answer (its pid, or -errno) are one record each.
    private let socket: Int32
    static let maxRequestBytes = 64 << 10

    init(loop: EventLoop, path: String) throws(LoopError) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw LoopError("socketpair", code: -errno)
        }
        defer { close(pair[1]) }
        do {
            process = try ChildProcess(loop: loop, path: path, arguments: ["--zygote"], descriptors: [pair[1]],
                                       environment: IsolationSettings.hostEnvironment(), inheritEnvironment: false, isolated: true)
        } catch {
            close(pair[0])
            throw error
        }
        socket = pair[0]
    }

    deinit {
        close(socket)
        process.close()
    }

    var isRunning: Bool { process.isRunning }
    var pid: pid_t { process.pid }

    /// Forks a host that runs with `arguments` and `descriptors` as its 3 to 6; its pid.
    func fork(_ arguments: [String], descriptors: [Int32]) throws(ZygoteError) -> pid_t {
        let request = Array(arguments.joined(separator: "\0").utf8)
        guard request.count <= HostZygote.maxRequestBytes else { throw .refused("the host's arguments are over \(HostZygote.maxRequestBytes) bytes") }
        let sent = request.withUnsafeBytes { bytes in
            descriptors.withUnsafeBufferPointer { deck_send_with_descriptors(socket, bytes.baseAddress, bytes.count, $0.baseAddress, Int32($0.count)) }
        }
        guard sent == request.count else { throw .gone("sending to the zygote: \(String(cString: strerror(errno)))") }
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 2_000) == 1 else { throw .gone("the zygote did not answer within 2 s") }
        var answer: Int32 = 0
        guard recv(socket, &answer, 4, 0) == 4 else { throw .gone("the zygote went away") }
        guard answer > 0 else { throw .refused("the zygote could not fork: \(String(cString: strerror(-answer)))") }
        return answer
    }
}

enum ZygoteError: Error, CustomStringConvertible {
    /// The zygote is not usable any more; hosts are started without it.
    case gone(String)
    /// This host could not be forked.
    case refused(String)

    var description: String {
        switch self {
        case .gone(let reason), .refused(let reason): reason
        }
    }
}
