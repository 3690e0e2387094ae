import CProcess
import DeckBase
import Glibc

extension PluginHostServer {
    /// `deck-plugin-host --zygote`: waits on descriptor 3 for requests (a host's arguments and its
    /// four descriptors) and forks a host for each, as the runtime's child; answers with its pid.
    /// Stays single-threaded, so each fork is a clean copy. Ends when the runtime closes the socket.
    static func zygote() -> Never {
        deck_close_from(4)
        ThreadName.set("deck-zygote")
        _ = deck_parent_death_signal(SIGKILL)
        if getppid() == 1 { _exit(0) }
        _ = HostSandbox.loadedFolders  // once here, not in every host
        emptyNetwork = makeEmptyNetwork()
        let socket: Int32 = 3
        var request = [UInt8](repeating: 0, count: HostZygote.maxRequestBytes)
        var passed = [Int32](repeating: -1, count: 4)
        while true {
            var count: Int32 = 0
            let length = request.withUnsafeMutableBytes { bytes in
                passed.withUnsafeMutableBufferPointer { deck_receive_with_descriptors(socket, bytes.baseAddress, bytes.count, $0.baseAddress, 4, &count) }
            }
            if length == 0 || (length < 0 && errno != EINTR) { _exit(0) }
            if length < 0 { continue }
            let descriptors = Array(passed[..<Int(count)])
            var answer: Int32
            if descriptors.count != 4 {
                answer = -EINVAL
            } else {
                let arguments = request[..<length].split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
                let pid = deck_fork_sibling()
                if pid == 0 { host(arguments, descriptors: descriptors) }
                answer = pid > 0 ? pid : -errno
            }
            descriptors.forEach { _ = close($0) }
            _ = withUnsafeBytes(of: &answer) { send(socket, $0.baseAddress, 4, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// A network namespace with nothing in it (a loopback that is down), made once by a root
    /// zygote and joined by every host without the network: making one per host costs more than
    /// the rest of its start. Abstract sockets in it stay each host's own (Landlock's scope). -1
    /// when the zygote cannot (not root, or root of a user namespace, which may leave the
    /// machine's network but not come back: each host makes its own).
    private static func makeEmptyNetwork() -> Int32 {
        guard geteuid() == 0, IsolationSettings.isInitialUserNamespace else { return -1 }
        let original = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)
        guard original >= 0 else { return -1 }
        defer { close(original) }
        guard deck_unshare_network(0) == 0 else { return -1 }
        let empty = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)
        guard deck_set_network(original) == 0 else { _exit(1) }  // a zygote that cannot return serves no one
        return empty
    }

    /// The zygote's empty network namespace (see `makeEmptyNetwork`), or -1.
    nonisolated(unsafe) private static var emptyNetwork: Int32 = -1  // The zygote is single-threaded.
    /// Set in a forked host that joined it.
    nonisolated(unsafe) static var inEmptyNetwork = false  // Written before the host's threads exist.

    /// In a host forked by the zygote: puts its descriptors at 3 to 6, joins the empty network
    /// when it is not granted the network, leaves the zygote's process group, and runs as a host.
    private static func host(_ arguments: [String], descriptors: [Int32]) -> Never {
        close(3)  // the zygote's socket
        if emptyNetwork >= 0, let parsed = try? HostArguments(arguments), parsed.sandbox, !parsed.permissions.contains(.network) {
            inEmptyNetwork = deck_set_network(emptyNetwork) == 0
        }
        // Above every target first, so no dup2 overwrites a source.
        let high = descriptors.map { fcntl($0, F_DUPFD_CLOEXEC, 16) }
        for (index, descriptor) in high.enumerated() { dup2(descriptor, Int32(3 + index)) }
        setpgid(0, 0)
        main(arguments)
    }
}
