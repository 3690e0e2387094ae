import DeckBase

/// Which listeners on this machine an HTTP sink turns away, as the runtime says per connection:
/// plugins' processes, since the car's audio (other apps, calls, prompts) is not a plugin's to
/// record. Loop-thread-confined.
public final class ListenerGate {
    /// Why the peer `remote` of the sink's end `local` may not listen, or nil.
    public var refusal: ((_ local: SocketAddress, _ remote: SocketAddress) -> String?)?

    public init() {}
}
