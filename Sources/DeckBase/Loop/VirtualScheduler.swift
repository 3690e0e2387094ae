/// A scheduler whose time stands still until `advance(by:)` moves it, firing every timer that
/// falls due on the way, in deadline order (ties in the order they were started). Decisions
/// timed by it run in tests without waiting and without depending on the machine's speed.
/// Loop-thread-confined.
public final class VirtualScheduler: Scheduler {
    public private(set) var now: UInt64
    private var timers: [VirtualTimer] = []
    private var started: UInt64 = 0

    public init(now: UInt64 = 1_000) { self.now = now }

    public func updateTime() {}

    public func makeTimer() throws(LoopError) -> any SchedulerTimer {
        let timer = VirtualTimer(scheduler: self)
        timers.append(timer)
        return timer
    }

    /// Timers started and not yet fired, stopped or closed.
    public var pendingTimers: Int { timers.count { $0.deadline != nil } }

    /// Moves time forward by `milliseconds`, firing what falls due at its own time.
    public func advance(by milliseconds: UInt64) {
        let end = now + milliseconds
        while let next = timers.filter({ ($0.deadline ?? .max) <= end }).min(by: { ($0.deadline!, $0.order) < ($1.deadline!, $1.order) }) {
            now = next.deadline!
            next.fire()
        }
        now = end
    }

    /// Fires what is due now (a timer started with 0 ms waits for this, as for a loop turn).
    public func runDue() { advance(by: 0) }

    fileprivate func nextOrder() -> UInt64 {
        started += 1
        return started
    }

    fileprivate func forget(_ timer: VirtualTimer) { timers.removeAll { $0 === timer } }
}

/// A timer of a `VirtualScheduler`. Loop-thread-confined.
final class VirtualTimer: SchedulerTimer {
    private unowned let scheduler: VirtualScheduler
    private(set) var deadline: UInt64?
    private(set) var order: UInt64 = 0
    private var interval: UInt64 = 0
    private var action: (() -> Void)?

    init(scheduler: VirtualScheduler) { self.scheduler = scheduler }

    func start(after milliseconds: UInt64, repeat repeatMilliseconds: UInt64, _ action: @escaping () -> Void) {
        deadline = scheduler.now + milliseconds
        order = scheduler.nextOrder()
        interval = repeatMilliseconds
        self.action = action
    }

    func stop() { deadline = nil }

    func close() {
        stop()
        action = nil
        scheduler.forget(self)
    }

    fileprivate func fire() {
        guard let due = deadline else { return }
        if interval > 0 {
            deadline = due + interval
            order = scheduler.nextOrder()
        } else {
            deadline = nil
        }
        action?()
    }
}
