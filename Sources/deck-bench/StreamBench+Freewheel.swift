import DeckRuntime
import Glibc
import Synchronization

/// Freewheel side by side: the pipeline and bare libopus encoding at once on one CPU, compared by
/// CPU time per frame, so the VM's slow and quick phases fall on both alike.
extension StreamBench {
    /// Rounds of the pipeline beside bare libopus, and of bare libopus beside itself (the method's own
    /// spread), each pair on one CPU for a window after a warm-up; round n takes CPU n mod the count.
    func freewheelSideBySide(pcm: [Float], work: TemporaryFolder) throws {
        let rounds = 6, seconds = 3
        let cpus = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let cases = ["Deck pipeline: render → mixer → encoder → Ogg file", "bare libopus (the method's own spread)"]
        let path = work.path + "/beside-freewheel.opus"
        var ratios = [[Double]](repeating: [], count: cases.count), last: FreewheelRound?
        for round in 0..<rounds {
            for index in round % 2 == 0 ? Array(cases.indices) : cases.indices.reversed() {
                if index == 0 {
                    let measured = try StreamBench.onCPU(round % cpus) { [self] in try freewheelBeside(pcm: pcm, seconds: seconds, path: path) }
                    ratios[index].append(measured.ratio)
                    last = measured
                } else {
                    ratios[index].append(try StreamBench.onCPU(round % cpus) { StreamBench.bareBesideBare(pcm: pcm, seconds: seconds) })
                }
            }
        }
        print("### Freewheel side by side (\(rounds) rounds of \(seconds) s; in each, the case and bare libopus encode at once on one CPU)\n")
        StreamBench.printRounds("CPU per frame vs bare libopus beside it", names: cases, ratios: ratios)
        print("\nEach side's CPU time over the window (after \(StreamBench.warmUpMilliseconds) ms of warm-up) divided by the frames it "
            + "encoded in it; both at normal priority, so the scheduler shares the CPU between them. Goal: ≤ 1.05×.\n")
        guard let last else { return }
        print("| where the pipeline's CPU went in the last round (threads, from the kernel's counts) | µs per frame | wake-ups per frame |")
        print("|---|---|---|")
        for thread in last.threads {
            print("| \(thread.role) | \(String(format1: thread.microsecondsPerFrame)) | \(String(format2: thread.wakeUpsPerFrame)) |")
        }
        print("")
    }

    /// One round of the pipeline beside bare libopus: the ratio, and each side's threads per frame.
    struct FreewheelRound: Sendable {
        struct Thread: Sendable {
            var role: String
            var microsecondsPerFrame: Double
            var wakeUpsPerFrame: Double
        }

        var ratio: Double
        var threads: [Thread]
    }

    static let warmUpMilliseconds: UInt64 = 500

    /// The runtime in freewheel into a file sink with bare libopus looping beside it: the ratio of
    /// their CPU per frame over `seconds` after the warm-up. [on the calling thread, which runs the loop]
    private func freewheelBeside(pcm: [Float], seconds: Int, path: String) throws -> FreewheelRound {
        var configuration = RuntimeConfiguration.benchDefault
        configuration.audio.freewheel = true
        configuration.sinks = ["file:\(path)"]
        configuration.files.overwrite = true  // each round rewrites the same file
        configuration.session.alwaysActive = true  // the stream is opened directly, without focus
        let runtime = try Runtime(configuration: configuration, logger: Logger(level: .error))
        let source = BenchSource(pcm: pcm)
        _ = try runtime.audio.openStream(source.renderSource, counters: StreamCounters())
        ThreadName.set("bench-loop")
        let bare = BareLoop(pcm: pcm)
        let steady = try LoopTimer(loop: runtime.loop), stop = try LoopTimer(loop: runtime.loop)
        func spent() -> (runtime: Double, runtimeFrames: Int, bare: Double, bareFrames: Int, threads: [Int: ThreadCPU]) {
            let bareCPU = bare.thread.cpuSeconds
            return (Measurement.processCPU() - bareCPU, runtime.audio.stats.frames.load(ordering: .relaxed), bareCPU, bare.frames,
                    ThreadCPU.snapshot())
        }
        var from = spent(), round = FreewheelRound(ratio: .nan, threads: [])
        try runtime.startOutput()
        steady.start(after: StreamBench.warmUpMilliseconds) { from = spent() }
        stop.start(after: StreamBench.warmUpMilliseconds + UInt64(seconds) * 1000) {
            let to = spent()
            let frames = to.runtimeFrames - from.runtimeFrames, bareFrames = to.bareFrames - from.bareFrames
            round.ratio = StreamBench.perFrameRatio(cpu: to.runtime - from.runtime, frames: frames, against: to.bare - from.bare, frames: bareFrames)
            let threads = ThreadCPU.spent(from: from.threads, to: to.threads)
            for (role, name, perFrames) in [("audio thread: render, mix, encode", "deck-audio", frames),
                                            ("loop: packets to the Ogg muxer", "bench-loop", frames),
                                            ("the file's writer", "deck-file", frames),
                                            ("bare libopus beside it (reference)", "bench-bare", bareFrames)] {
                let mine = threads.filter { $0.name == name }
                round.threads.append(FreewheelRound.Thread(role: role,
                    microsecondsPerFrame: Double(mine.reduce(0) { $0 + $1.nanoseconds }) / 1e3 / Double(max(perFrames, 1)),
                    wakeUpsPerFrame: Double(mine.reduce(0) { $0 + $1.wakeUps }) / Double(max(perFrames, 1))))
            }
            runtime.shutdown()
            stop.close()
            steady.close()
        }
        runtime.loop.run()
        bare.stop()
        withExtendedLifetime(source) {}
        return round
    }

    /// Two bare loops at once: the first's CPU per frame against the second's.
    private static func bareBesideBare(pcm: [Float], seconds: Int) -> Double {
        let first = BareLoop(pcm: pcm), second = BareLoop(pcm: pcm)
        func spent() -> [(cpu: Double, frames: Int)] { [first, second].map { ($0.thread.cpuSeconds, $0.frames) } }
        var pause = timespec(tv_sec: 0, tv_nsec: Int(warmUpMilliseconds) * 1_000_000)
        nanosleep(&pause, nil)
        let from = spent()
        pause = timespec(tv_sec: seconds, tv_nsec: 0)
        nanosleep(&pause, nil)
        let to = spent()
        first.stop()
        second.stop()
        return perFrameRatio(cpu: to[0].cpu - from[0].cpu, frames: to[0].frames - from[0].frames,
                             against: to[1].cpu - from[1].cpu, frames: to[1].frames - from[1].frames)
    }

    private static func perFrameRatio(cpu: Double, frames: Int, against referenceCPU: Double, frames referenceFrames: Int) -> Double {
        guard frames > 0, referenceFrames > 0, referenceCPU > 0 else { return .nan }
        return (cpu / Double(frames)) / (referenceCPU / Double(referenceFrames))
    }
}

/// Bare libopus encoding `pcm` over and over on a thread of its own until stopped, counting frames.
private final class BareLoop {
    private final class Counts: Sendable {
        let frames = Atomic<Int>(0)
        let stopped = Atomic<Bool>(false)
    }

    private let counts = Counts()
    let thread: BenchThread

    init(pcm: [Float]) {
        let counts = counts
        thread = BenchThread {
            ThreadName.set("bench-bare")
            StreamBench.bareEncode(pcm) {
                counts.frames.add(1, ordering: .relaxed)
                return !counts.stopped.load(ordering: .relaxed)
            }
        }
    }

    var frames: Int { counts.frames.load(ordering: .relaxed) }

    func stop() {
        counts.stopped.store(true, ordering: .relaxed)
        thread.join()
    }
}
