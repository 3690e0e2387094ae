/// Hands each packet to a closure: the embedding API's sink, and the tests'. Loop-thread-confined.
public final class CallbackSink: Sink {
    public let uri: String
    /// How long packets may wait to be handed over together (0: each at once); after a change,
    /// `Output.applySinkBatch()` passes it on.
    public var batchMilliseconds: Int
    public private(set) var status = SinkStatus()
    private let onPacket: (EncodedPacket) -> Void
    private let onFinish: () -> Void

    /// `batchMilliseconds`: how long packets may wait to be handed over together (0: each at once).
    public init(name: String, batchMilliseconds: Int = 0, onPacket: @escaping (EncodedPacket) -> Void, onFinish: @escaping () -> Void = {}) {
        uri = "callback:\(name)"
        self.batchMilliseconds = batchMilliseconds
        self.onPacket = onPacket
        self.onFinish = onFinish
    }

    public func deliver(_ packet: EncodedPacket) {
        status.finished = false
        status.packets += 1
        status.bytes += packet.bytes.count
        onPacket(packet)
    }

    public func finish() {
        status.finished = true
        onFinish()
    }

    public func close() {}
}
