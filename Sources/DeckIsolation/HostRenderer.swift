import CProcess
import DeckMedia
import DeckBase
import Glibc
import Synchronization

/// The host process's audio thread: renders the plugin ahead into the shared ring while its
/// stream is open, woken by the runtime each time it takes a frame. It asks for the output
/// thread's real-time scheduling, so isolation costs no audio when the machine is busy.
final class HostRenderer: @unchecked Sendable {  // `source` is written once before `hasSource` is set; the flags are atomic, `job` is locked; `isRealtime` and `isStarted` are the loop thread's.
    let thread = ThreadIdentity()
    let ring: AudioRing
    private var source: RenderSource?
    private let hasSource = Atomic<Bool>(false)
    private let rendering = Atomic<Bool>(false)
    private let inRender = Atomic<Bool>(false)
    /// What could not be applied to the thread (real-time scheduling the system refused).
    private(set) var problems: [String] = []
    /// Whether the thread has real-time scheduling (granted, and not seen taken back).
    private(set) var isRealtime = false
    /// The thread's kernel id, once it runs: what its scheduling is read by (glibc's
    /// `pthread_getschedparam` answers what it last set, not what the kernel changed since).
    private let kernelThread = Atomic<Int32>(0)
    /// Whether the thread was started.
    private var isStarted = false
    /// A job `onRenderThread` hands the thread before it renders, and the job's answer.
    private let job = Mutex<(@Sendable () -> Int32)?>(nil)
    private let jobAnswer = Atomic<Int32>(HostRenderer.noAnswer)
    private static let noAnswer = Int32.min

    /// Starts the thread at once, while the host still has the privileges it drops later, so it
    /// can take the output thread's SCHED_FIFO `realtimePriority` (0: normal scheduling). It
    /// renders nothing until `start` hands it the plugin's render.
    init(ring: AudioRing, realtimePriority: Int32) {
        self.ring = ring
        var handle = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&handle, nil, { context in
            Unmanaged<HostRenderer>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<HostRenderer>.fromOpaque(context).release()
            problems.append("render thread: \(String(cString: strerror(status)))")
            return
        }
        isStarted = true
        if realtimePriority > 0 {
            var parameters = sched_param(sched_priority: realtimePriority)
            let refused = pthread_setschedparam(handle, SCHED_FIFO, &parameters)
            if refused != 0 { problems.append("SCHED_FIFO for the render thread: \(String(cString: strerror(refused)))") }
            else { isRealtime = true }
        }
        pthread_detach(handle)
    }

    /// The longest the render thread may run at real-time priority without waiting (rtkit's
    /// limit): a render that spins would otherwise take a whole CPU from every normal thread.
    static let realtimeBudgetMicroseconds: rlim_t = 200_000

    /// Lets the kernel take real-time scheduling back from a render that spins: past the budget
    /// SIGXCPU moves the thread it stopped to normal scheduling, and a thread still real-time a
    /// second later ends the process (RLIMIT_RTTIME's hard limit). Called on the loop thread after
    /// the render thread started, so the loop's threads block SIGXCPU and the render thread takes
    /// it. Returns what could not be applied.
    static func limitRealtime() -> [String] {
        var limit = rlimit(rlim_cur: realtimeBudgetMicroseconds, rlim_max: realtimeBudgetMicroseconds + 1_000_000)
        guard setrlimit(Int32(__RLIMIT_RTTIME.rawValue), &limit) == 0 else { return ["RLIMIT_RTTIME: \(String(cString: strerror(errno)))"] }
        signal(SIGXCPU) { _ in
            var normal = sched_param(sched_priority: 0)
            _ = sched_setscheduler(0, SCHED_OTHER, &normal)  // the calling thread: async-signal-safe
        }
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGXCPU)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        return []
    }

    /// True once, when the kernel took the render thread's real-time scheduling back.
    func realtimeWasTakenBack() -> Bool {
        let thread = kernelThread.load(ordering: .acquiring)
        guard isRealtime, thread != 0, sched_getscheduler(thread) == SCHED_OTHER else { return false }
        isRealtime = false
        return true
    }

    /// Keeps the 64 KiB of this thread's stack below the caller in memory: a page fault on the
    /// render path is a late frame.
    private static func lockStack() {
        var marker: UInt8 = 0
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let top = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) } & ~(page - 1)
        _ = mlock(UnsafeRawPointer(bitPattern: top - 65_536), 65_536 + Int(page))
    }

    /// Runs `job` on the render thread, before it renders anything, and waits for it (up to 2 s):
    /// what a process puts on itself thread by thread (Landlock) must hold on this thread too.
    /// The job's answer (0 or an errno); 0 when the thread did not start, ETIMEDOUT when it
    /// did not answer. For the loop thread, before the plugin's code loads.
    func onRenderThread(_ job: @escaping @Sendable () -> Int32) -> Int32 {
        guard isStarted else { return 0 }
        jobAnswer.store(HostRenderer.noAnswer, ordering: .releasing)
        self.job.withLock { $0 = job }
        AudioRing.ring(ring.space)
        for _ in 0..<20_000 {
            let answer = jobAnswer.load(ordering: .acquiring)
            if answer != HostRenderer.noAnswer { return answer }
            usleep(100)
        }
        return ETIMEDOUT
    }

    /// Hands the thread what it pulls.
    func start(_ source: RenderSource) {
        self.source = source
        hasSource.store(true, ordering: .releasing)
        AudioRing.ring(ring.space)
    }

    /// Renders from now on (the stream opened).
    func resume() {
        rendering.store(true, ordering: .sequentiallyConsistent)
        AudioRing.ring(ring.space)
    }

    /// Stops rendering and waits (up to a second) until render() is no longer running; with
    /// `discarding`, frames the runtime has not taken are dropped too.
    func pause(discarding: Bool = false) {
        rendering.store(false, ordering: .sequentiallyConsistent)
        for _ in 0..<10_000 where inRender.load(ordering: .sequentiallyConsistent) { usleep(100) }
        if discarding { ring.discardUnread() }
    }

    private func run() {
        thread.claim()
        kernelThread.store(KernelThread.id, ordering: .releasing)
        HostRenderer.lockStack()
        while !hasSource.load(ordering: .acquiring) {  // `start` and `onRenderThread` ring it
            if let job = job.withLock({ job in defer { job = nil }; return job }) {
                jobAnswer.store(job(), ordering: .releasing)
            } else {
                AudioRing.wait(ring.space, milliseconds: 1_000)
            }
        }
        guard let source else { return }
        while true {
            if rendering.load(ordering: .sequentiallyConsistent) && ring.hasRoom {
                inRender.store(true, ordering: .sequentiallyConsistent)
                if rendering.load(ordering: .sequentiallyConsistent) {
                    ring.write { out, frames in Int(source.render(source.plugin, UInt32(frames), out)) }
                }
                inRender.store(false, ordering: .sequentiallyConsistent)
            } else {
                // Every change that gives it work rings `space` (resume, a frame taken), so while the
                // stream is closed it sleeps until one does: an idle host's audio thread never wakes.
                AudioRing.wait(ring.space, milliseconds: rendering.load(ordering: .sequentiallyConsistent) ? 100 : -1)
            }
        }
    }
}
