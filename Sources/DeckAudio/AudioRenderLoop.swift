import DeckBase
import DeckStream
import Glibc
import Synchronization

/// The audio thread's work: apply commands, mix each active bus, encode it, publish; paced by absolute deadlines on
/// CLOCK_MONOTONIC (a sliding clock drifts) or unpaced in freewheel. Never allocates, locks or
/// does I/O once running. Audio-thread-confined, apart from the atomics and rings it shares.
final class AudioRenderLoop: @unchecked Sendable {  // The loop touches the mixer and encoder only before start and after join.
    let configuration: AudioConfiguration
    let mixer: Mixer
    /// One encoder per bus; a bus's encoder runs only while the bus is active.
    let encoders: [OpusEncoder]
    let commands = SPSCRing<AudioCommand>(capacity: 256)
    let packets: PacketRing
    let stats: AudioStats
    let identity: ThreadIdentity
    /// Commands applied so far; the loop waits on it to know a stream is detached.
    let appliedCommands = Atomic<Int>(0)
    let stopRequested = Atomic<Bool>(false)
    let finished = Atomic<Bool>(false)
    /// Set by the watchdog when this thread stalled in a render and a fresh one took over: if the
    /// render ever returns, the thread ends without touching anything shared.
    let abandoned = Atomic<Bool>(false)
    /// Frames begun so far (the frame in progress included): where a fresh thread picks up.
    let framesBegun = Atomic<Int64>(0)
    /// Paced, how many frames' packets wait before the loop is woken to take them (set by the loop).
    let batchFrames = Atomic<Int>(1)
    /// CLOCK_MONOTONIC nanoseconds when the last frame began (when the thread started, before its first).
    let lastFrameBegan = Atomic<Int>(0)
    /// Set once the thread was given real-time scheduling: it then keeps it (`keepRealtime`).
    let realtime = Atomic<Bool>(false)
    /// The thread's kernel id, once it runs.
    let kernelThread = Atomic<Int32>(0)
    private let doorbell: AsyncDoorbell.Ringer
    /// The watchdog's deadline, pushed one render timeout ahead at least every quarter of it.
    private let deadline: LoopDeadline
    private var lastPush = Int.min / 2
    private let pcm: UnsafeMutablePointer<Float>
    private let spare: UnsafeMutablePointer<UInt8>
    /// Frames encoded so far (each frame is one packet per active bus).
    private var packetIndex: Int64 = 0
    private var activeBuses: UInt8
    private var generation: Int
    /// Where the mix of bus 0 is copied for the embedding API, when asked.
    private var tap: Unmanaged<PCMTap>?
    /// Takes the packets of `tapBus` (-1: none) on this thread as they are encoded.
    private let packetTap: PacketTap
    private var tapBus: Int
    /// Samples per channel of real (not padding) audio produced.
    private var inputSamples: Int64 = 0
    /// Frames published since the loop was last woken.
    private var framesUnannounced = 0

    init(configuration: AudioConfiguration, doorbell: AsyncDoorbell.Ringer, deadline: LoopDeadline, stats: AudioStats, identity: ThreadIdentity,
         activeBuses: UInt8 = 1, generation: Int = 0, tap: PCMTap? = nil, packetTap: PacketTap, tapBus: Int = -1,
         resumingAt frame: Int64 = 0) throws(AudioConfigurationError) {
        self.configuration = configuration
        self.packetTap = packetTap
        self.tapBus = tapBus
        self.deadline = deadline
        packetIndex = frame
        inputSamples = frame * Int64(configuration.frameSize.samples)
        framesBegun.store(frame, ordering: .relaxed)
        self.tap = tap.map { Unmanaged.passUnretained($0) }
        self.activeBuses = activeBuses
        self.generation = generation
        self.doorbell = doorbell
        self.stats = stats
        self.identity = identity
        let frames = configuration.frameSize.samples
        mixer = Mixer(frames: frames)
        var encoders: [OpusEncoder] = []
        for _ in 0..<Mixer.maxBuses { encoders.append(try OpusEncoder(settings: configuration.encoder, frameSamples: frames)) }
        self.encoders = encoders
        packets = PacketRing(capacity: configuration.packetRingCapacity, slotBytes: encoders[0].maxPacketBytes)
        pcm = .allocate(capacity: frames * AudioFormat.channels * Mixer.maxBuses)
        spare = .allocate(capacity: encoders[0].maxPacketBytes)
    }

    deinit {
        pcm.deallocate()
        spare.deallocate()
    }

    var frames: Int { configuration.frameSize.samples }
    /// The encoders' delay in samples (the same for every bus): the Ogg pre-skip.
    var lookahead: Int { encoders[0].lookahead }

    func run() {
        identity.claim()
        kernelThread.store(KernelThread.id, ordering: .releasing)
        ThreadName.set("deck-audio")  // top -H and profilers tell it from the loop
        // Threads the runtime owns never take SIGPIPE, without touching the host process's disposition.
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipe, nil)
        // Here, not when they are made, so an idle runtime keeps its memory.
        packets.writeEveryPage()
        mixer.writeEveryPage()
        silenceEveryBus()
        var deadline = MonotonicClock.nanoseconds
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
            framesBegun.store(packetIndex + 1, ordering: .relaxed)
            proveAlive()
            let limited = mixer.mix(into: pcm, activeBuses: activeBuses)
            if abandoned.load(ordering: .acquiring) { return }
            if limited > 0 { stats.limitedSamples.add(limited, ordering: .relaxed) }
            if valid < frames {
                for bus in 0..<Mixer.maxBuses { (pcm + bus * frames * 2 + valid * 2).update(repeating: 0, count: (frames - valid) * 2) }
            }
            inputSamples += Int64(valid)
            tap?._withUnsafeGuaranteedRef { $0.write(pcm, count: valid * AudioFormat.channels) }
            // At the end of --duration, this frame is the last when it already covers the encoder's delay.
            let isLast = Int(inputSamples) == configuration.durationSamples && packetsNeeded() == packetIndex + 1
            encodeAndPublish(isLast: isLast, waitForSpace: isLast)
            if isLast {
                markFinished()
                return
            }
            if !configuration.freewheel {
                deadline += period
                let now = MonotonicClock.nanoseconds
                if now - deadline > configuration.lateBoundNanoseconds {
                    stats.lateEvents.add(1, ordering: .relaxed)
                    deadline = now
                }
                sleep(until: deadline)
                stats.lateness.record(MonotonicClock.nanoseconds - deadline)
                if packetIndex % Self.realtimeCheckFrames == 0 { keepRealtime() }
            }
        }
        finish()
    }

    /// Encodes silence until the encoder's delay is flushed and marks the last packet. When no
    /// padding is needed, one frame of silence is added so a packet can carry the end of stream.
    private func finish() {
        if packetsNeeded() <= packetIndex { inputSamples += Int64(frames) }
        let needed = packetsNeeded()
        silenceEveryBus()
        while packetIndex < needed {
            encodeAndPublish(isLast: packetIndex + 1 == needed, waitForSpace: true)
        }
        markFinished()
    }

    /// Zeroes every bus's mix (all their pages, active or not).
    private func silenceEveryBus() { pcm.update(repeating: 0, count: frames * AudioFormat.channels * Mixer.maxBuses) }

    /// Packets that cover the real audio plus the encoder's delay, so a decoder can trim to it.
    private func packetsNeeded() -> Int64 {
        (Int64(lookahead) + inputSamples + Int64(frames) - 1) / Int64(frames)
    }

    private func markFinished() {
        finished.store(true, ordering: .releasing)
        doorbell.ring()
    }

    /// Encodes the frame of every active bus and publishes the packets together.
    private func encodeAndPublish(isLast: Bool, waitForSpace: Bool = false) {
        let buses = activeBuses.nonzeroBitCount
        var room = packets.hasRoom(for: buses)
        while !room && (configuration.freewheel || waitForSpace) {
            applyCommands()
            doorbell.ring()
            var pause = timespec(tv_sec: 0, tv_nsec: 200_000)
            nanosleep(&pause, nil)
            room = packets.hasRoom(for: buses)
        }
        let sampleIndex = packetIndex * Int64(frames)
        packetIndex += 1
        stats.frames.add(1, ordering: .relaxed)
        var staged = 0
        for bus in 0..<Mixer.maxBuses where activeBuses & (1 << bus) != 0 {
            // Without room the packet is still encoded (into a spare buffer), so the encoder's state follows the audio.
            let buffer = room ? packets.buffer(ahead: staged) : spare
            let length = encoders[bus].encode(pcm + bus * frames * 2, into: buffer)
            guard length > 0 else {
                stats.encoderErrors.add(1, ordering: .relaxed)
                continue
            }
            if bus == tapBus {
                packetTap.deliver(buffer, count: length, granule: isLast ? Int64(lookahead) + inputSamples : sampleIndex + Int64(frames),
                                  samples: frames, preSkip: lookahead, isLast: isLast)
            }
            guard room else {
                stats.droppedPackets.add(1, ordering: .relaxed)
                continue
            }
            packets.stage(PacketRing.Slot(length: length, sampleIndex: sampleIndex, samples: frames, isLast: isLast,
                                          finalGranule: Int64(lookahead) + inputSamples, bus: bus, generation: generation,
                                          encodedAt: MonotonicClock.nanoseconds),
                          ahead: staged)
            staged += 1
        }
        packets.publish(staged)
        // Paced, the loop wakes once per batch the sinks allow; in freewheel every few packets,
        // since a wake-up per packet would cost more than the packet.
        framesUnannounced += 1
        let due = configuration.freewheel ? packets.count >= AudioRenderLoop.freewheelBatch
                                          : framesUnannounced >= batchFrames.load(ordering: .relaxed)
        if due || isLast {
            doorbell.ring()
            framesUnannounced = 0
        }
    }

    static let freewheelBatch = 32

    /// Applies queued commands to the mixer. [audio-thread, or the loop while the thread is not running]
    func applyCommands() {
        while let command = commands.pop() {
            switch command {
            case .open(let stream, let source, let gain, let counters, let buses):
                mixer.open(stream: stream, source: source, gain: gain, counters: counters, buses: buses)
            case .close(let stream):
                mixer.close(stream: stream)
            case .ramp(let stream, let target, let samples, let curve):
                mixer.rampGain(stream: stream, to: target, samples: samples, curve: curve)
            case .route(let stream, let buses):
                mixer.route(stream: stream, buses: buses)
            case .tap(let tap):
                self.tap = tap
            case .activate(let buses, let generation, let tapBus):
                for bus in 0..<Mixer.maxBuses where buses & (1 << bus) != 0 && activeBuses & (1 << bus) == 0 { encoders[bus].reset() }
                activeBuses = buses
                self.generation = generation
                self.tapBus = tapBus
            }
            stats.lastCommandFrame.store(stats.frames.load(ordering: .relaxed), ordering: .relaxed)
            appliedCommands.add(1, ordering: .releasing)
        }
    }

    /// Notes the frame's start and, a quarter of the render timeout after the last push, pushes
    /// the watchdog's deadline a whole timeout ahead: about 20 system calls a second, no wake-up.
    private func proveAlive() {
        let now = MonotonicClock.nanoseconds
        lastFrameBegan.store(now, ordering: .relaxed)
        let timeout = configuration.renderTimeoutMilliseconds * 1_000_000
        guard now - lastPush >= timeout / 4 else { return }
        lastPush = now
        deadline.push(nanoseconds: timeout)
    }

    /// How often, in frames, the paced thread looks at its own scheduling (once a second at 20 ms).
    static let realtimeCheckFrames: Int64 = 50

    /// Takes real-time scheduling back when something changed it: any process of the runtime's
    /// uid may (not a plugin's host, whose seccomp filter refuses it, but an embedder's own).
    private func keepRealtime() {
        guard realtime.load(ordering: .relaxed), sched_getscheduler(0) != SCHED_FIFO else { return }
        var parameters = sched_param(sched_priority: AudioEngine.realtimePriority)
        guard pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) == 0 else { return }
        stats.realtimeRetaken.add(1, ordering: .relaxed)
        doorbell.ring()
    }

    private func sleep(until deadline: Int) {
        var target = timespec(tv_sec: deadline / 1_000_000_000, tv_nsec: deadline % 1_000_000_000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
    }

}
