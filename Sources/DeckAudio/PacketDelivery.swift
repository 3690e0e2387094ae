import DeckStream

/// Takes, on the loop, what the audio thread produced: each encoded packet in order (then
/// `onFinished` once after the last of the output), the PCM tap's copy of the mix, and how many
/// packets were dropped because the loop did not take them in time. Loop-thread-confined.
public final class PacketDelivery {
    /// Each packet, in order, on the loop thread.
    public var onPacket: ((EncodedPacket) -> Void)?
    /// Once, after the last packet (duration reached or `stop()`).
    public var onFinished: (() -> Void)?
    /// After each drain that delivered packets: the packets handed over together are all out.
    public var onBatchEnd: (() -> Void)?
    /// The mix before encoding (interleaved stereo, sample count), once `AudioEngine.enablePCMTap` ran.
    public var onPCM: ((UnsafePointer<Float>, Int) -> Void)?
    /// When packets were dropped since the last drain: how many.
    public var onDropped: ((Int) -> Void)?
    /// The PCM tap, once enabled; kept across runs.
    var tap: PCMTap?
    private var reportedDrops = 0
    /// The last packet's bytes, whose storage the next packet takes if no sink kept them.
    private var spare: [UInt8] = []
    /// Whether the output's last packet was delivered (reset for each run).
    private(set) var hasFinished = false

    init() {}

    /// A new run begins: its last packet will finish it again.
    func beginRun() { hasFinished = false }

    /// Delivers what `worker` produced since the last drain.
    func drain(_ worker: AudioRenderLoop, stats: AudioStats) {
        let dropped = stats.droppedPackets.load(ordering: .relaxed)
        if dropped > reportedDrops {
            onDropped?(dropped - reportedDrops)
            reportedDrops = dropped
        }
        if let tap, let onPCM { tap.read(onPCM) }
        var delivered = false
        while let packet = worker.packets.pop(preSkip: worker.lookahead, reusing: &spare) {
            delivered = true
            onPacket?(packet)
            if packet.isLast && !hasFinished {
                hasFinished = true
                onFinished?()
            }
        }
        if delivered { onBatchEnd?() }
    }
}
