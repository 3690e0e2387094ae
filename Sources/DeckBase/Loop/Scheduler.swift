/// What a decision needs of time: "now" in milliseconds and timers. The libuv loop is the real
/// one (`EventLoop`); `VirtualScheduler` is one whose time moves only when a test moves it, as
/// swift-nio's `EmbeddedEventLoop.advanceTime`. Loop-thread-confined.
public protocol Scheduler: AnyObject {
    /// Milliseconds on this scheduler's clock.
    var now: UInt64 { get }
    /// Brings `now` up to date (the loop caches it per turn).
    func updateTime()
    func makeTimer() throws(LoopError) -> any SchedulerTimer
}

/// A one-shot or repeating timer of a `Scheduler`. Loop-thread-confined.
public protocol SchedulerTimer: AnyObject {
    /// Fires `action` after `milliseconds`, then every `repeatMilliseconds` if that is not 0;
    /// starting a started timer moves it.
    func start(after milliseconds: UInt64, repeat repeatMilliseconds: UInt64, _ action: @escaping () -> Void)
    func stop()
    /// Stops it for good.
    func close()
}

extension SchedulerTimer {
    public func start(after milliseconds: UInt64, _ action: @escaping () -> Void) { start(after: milliseconds, repeat: 0, action) }
}

extension EventLoop: Scheduler {
    public func makeTimer() throws(LoopError) -> any SchedulerTimer { try LoopTimer(loop: self) }
}

extension LoopTimer: SchedulerTimer {}
