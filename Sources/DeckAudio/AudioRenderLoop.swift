import DeckBase
import DeckStream
import Glibc
import Synchronization

/// The audio thread's work: apply commands, mix, encode, publish; paced by absolute deadlines on
/// CLOCK_MONOTONIC (a sliding clock drifts) or unpaced in freewheel. Never allocates, locks or
/// does I/O once running. Audio-thread-confined, apart from the atomics and rings it shares.
final class AudioRenderLoop: @unchecked Sendable {  // The loop touches the mixer and encoder only before start and after join.
    let configuration: AudioConfiguration
    let mixer: Mixer
    let encoder: OpusEncoder
    let commands = SPSCRing<AudioCommand>(capacity: 256)
    let packets: PacketRing
    let stats: AudioStats
    let identity: ThreadIdentity
    /// Commands applied so far; the loop waits on it to know a stream is detached.
    let appliedCommands = Atomic<Int>(0)
    let stopRequested = Atomic<Bool>(false)
    let finished = Atomic<Bool>(false)
    private let doorbell: AsyncDoorbell.Ringer
    private let pcm: UnsafeMutablePointer<Float>
    private let spare: UnsafeMutablePointer<UInt8>
    private var packetIndex: Int64 = 0
    /// Samples per channel of real (not padding) audio produced.
    private var inputSamples: Int64 = 0

    init(configuration: AudioConfiguration, doorbell: AsyncDoorbell.Ringer, stats: AudioStats,
         identity: ThreadIdentity) throws(AudioConfigurationError) {
        self.configuration = configuration
        self.doorbell = doorbell
        self.stats = stats
        self.identity = identity
        let frames = configuration.frameSize.samples
        mixer = Mixer(frames: frames)
        packets = PacketRing(capacity: configuration.packetRingCapacity)
        encoder = try OpusEncoder(settings: configuration.encoder, frameSamples: frames)
        pcm = .allocate(capacity: frames * AudioFormat.channels)
        spare = .allocate(capacity: OpusEncoder.maxPacketBytes)
    }

    deinit {
        pcm.deallocate()
        spare.deallocate()
    }

    var frames: Int { configuration.frameSize.samples }

    func run() {
        identity.claim()
        // Threads the runtime owns never take SIGPIPE, without touching the host process's disposition.
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipe, nil)
        var deadline = AudioRenderLoop.now()
        let period = configuration.frameSize.nanoseconds
        var fadingOut = false
        while true {
            applyCommands()
            if stopRequested.load(ordering: .acquiring) {
                // The output ends with every stream faded out, never cut at full level before EOS.
                if !fadingOut {
                    fadingOut = true
                    mixer.fadeOutAll(samples: Int(configuration.declickMilliseconds * 48))
                }
                if !mixer.isFading { break }
            }
            var valid = frames
            if let limit = configuration.durationSamples {
                valid = min(frames, limit - Int(inputSamples))
                if valid <= 0 { break }
            }
            mixer.mix(into: pcm)
            if valid < frames { (pcm + valid * 2).update(repeating: 0, count: (frames - valid) * 2) }
            inputSamples += Int64(valid)
            // At the end of --duration, this frame is the last when it already covers the encoder's delay.
            let isLast = Int(inputSamples) == configuration.durationSamples && packetsNeeded() == packetIndex + 1
            encodeAndPublish(isLast: isLast, waitForSpace: isLast)
            if isLast {
                markFinished()
                return
            }
            if !configuration.freewheel {
                deadline += period
                let now = AudioRenderLoop.now()
                if now - deadline > configuration.lateBoundNanoseconds {
                    stats.lateEvents.add(1, ordering: .relaxed)
                    deadline = now
                }
                sleep(until: deadline)
                stats.lateness.record(AudioRenderLoop.now() - deadline)
            }
        }
        finish()
    }

    /// Encodes silence until the encoder's delay is flushed and marks the last packet. When no
    /// padding is needed, one frame of silence is added so a packet can carry the end of stream.
    private func finish() {
        if packetsNeeded() <= packetIndex { inputSamples += Int64(frames) }
        let needed = packetsNeeded()
        pcm.update(repeating: 0, count: frames * 2)
        while packetIndex < needed {
            encodeAndPublish(isLast: packetIndex + 1 == needed, waitForSpace: true)
        }
        markFinished()
    }

    /// Packets that cover the real audio plus the encoder's delay, so a decoder can trim to it.
    private func packetsNeeded() -> Int64 {
        (Int64(encoder.lookahead) + inputSamples + Int64(frames) - 1) / Int64(frames)
    }

    private func markFinished() {
        finished.store(true, ordering: .releasing)
        doorbell.ring()
    }

    private func encodeAndPublish(isLast: Bool, waitForSpace: Bool = false) {
        var buffer = packets.reserve()
        while buffer == nil && (configuration.freewheel || waitForSpace) {
            applyCommands()
            doorbell.ring()
            var pause = timespec(tv_sec: 0, tv_nsec: 200_000)
            nanosleep(&pause, nil)
            buffer = packets.reserve()
        }
        let length = encoder.encode(pcm, into: buffer ?? spare, capacity: OpusEncoder.maxPacketBytes)
        let sampleIndex = packetIndex * Int64(frames)
        packetIndex += 1
        stats.frames.add(1, ordering: .relaxed)
        stats.limitedSamples.store(mixer.limitedSamples, ordering: .relaxed)
        guard length > 0 else {
            stats.encoderErrors.add(1, ordering: .relaxed)
            return
        }
        guard buffer != nil else {
            stats.droppedPackets.add(1, ordering: .relaxed)
            return
        }
        packets.commit(PacketRing.Slot(length: length, sampleIndex: sampleIndex, samples: frames, isLast: isLast,
                                       finalGranule: Int64(encoder.lookahead) + inputSamples))
        // Paced, every packet wakes the loop at once; in freewheel only every few, since a wake-up
        // per packet would cost more than the packet.
        if !configuration.freewheel || isLast || packets.count >= AudioRenderLoop.freewheelBatch { doorbell.ring() }
    }

    static let freewheelBatch = 32

    /// Applies queued commands to the mixer. [audio-thread, or the loop while the thread is not running]
    func applyCommands() {
        while let command = commands.pop() {
            switch command {
            case .open(let stream, let source, let gain, let counters):
                mixer.open(stream: stream, source: source, gain: gain, counters: counters)
            case .close(let stream):
                mixer.close(stream: stream)
            case .ramp(let stream, let target, let samples, let curve):
                mixer.rampGain(stream: stream, to: target, samples: samples, curve: curve)
            }
            stats.lastCommandFrame.store(stats.frames.load(ordering: .relaxed), ordering: .relaxed)
            appliedCommands.add(1, ordering: .releasing)
        }
    }

    private func sleep(until deadline: Int) {
        var target = timespec(tv_sec: deadline / 1_000_000_000, tv_nsec: deadline % 1_000_000_000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
    }

    static func now() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }
}
