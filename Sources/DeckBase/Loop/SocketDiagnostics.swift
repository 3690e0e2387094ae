import CProcess
import Glibc

/// A netlink socket for the kernel's sock_diag, kept by one that asks at every packet (an RTP
/// sink to this machine): a lookup through it makes two system calls fewer. Closed with it.
public final class SocketDiagnostics {
    let descriptor: Int32

    /// Nil when the kernel or a system call filter refuses netlink sockets.
    public init?() {
        descriptor = deck_sock_diag_open()
        if descriptor < 0 { return nil }
    }

    deinit { close(descriptor) }
}
