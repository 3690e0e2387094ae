/// Where encoded audio goes. Each sink fails alone: errors are logged and counted and the other
/// sinks, the audio thread and the runtime go on. Loop-thread-confined.
public protocol Sink: AnyObject {
    var uri: String { get }
    var status: SinkStatus { get }
    /// How long its packets may wait to be handed over together, in ms; 0 takes each as soon as it
    /// is encoded. The loop wakes once per batch the strictest sink allows, not once per packet.
    var batchMilliseconds: Int { get }
    /// Called once per packet, in order, from the first packet after the sink was added.
    func deliver(_ packet: EncodedPacket)
    /// The packets handed over together so far are all delivered: a sink that writes them out
    /// (a file) may do so once now rather than per packet.
    func endBatch()
    /// The output ended (the packet marked last was delivered): end the stream cleanly.
    func finish()
    /// The sink is removed: release sockets and files now.
    func close()
}

extension Sink {
    /// Each packet at once, unless the sink says it writes less often.
    public var batchMilliseconds: Int { 0 }

    /// Each packet went out as it came.
    public func endBatch() {}
}

/// A sink's counters, for `sinks.list`.
public struct SinkStatus: Sendable, Equatable {
    public var packets = 0
    public var bytes = 0
    public var errors = 0
    public var lastError: String?
    /// HTTP only: clients now connected and clients dropped for reading too slowly.
    public var clients: Int?
    public var droppedClients: Int?
    /// The output ended and everything for it has been written (a file is closed).
    public var finished = false
    /// The sink can no longer deliver anything (its file was deleted); it stays listed until removed.
    public var failed = false
    /// Packets not delivered because the sink had failed.
    public var droppedPackets = 0

    public init() {}

    /// Counts a failure; true when it should be logged (the 1st, 10th, 100th… so a dead disk
    /// does not flood the log).
    mutating func count(error: String) -> Bool {
        errors += 1
        lastError = error
        var power = 1
        while power < errors { power *= 10 }
        return power == errors
    }
}
