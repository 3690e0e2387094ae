import DeckBase
import Glibc

/// Which listeners on this machine the sinks turn away, as the runtime says: plugins' processes,
/// since the car's audio (other apps, calls, prompts) is not a plugin's to record.
/// Loop-thread-confined.
public final class ListenerGate {
    /// Why the peer `remote` of an HTTP sink's end `local` may not listen, or nil.
    public var refusal: ((_ local: SocketAddress, _ remote: SocketAddress) -> String?)?
    /// Why `socket` (named `name`; its uid and inode), which receives an RTP sink's datagrams on
    /// this machine, may not, or nil.
    public var receiverRefusal: ((_ socket: (uid: uid_t, inode: UInt64), _ name: String) -> String?)?

    public init() {}
}
