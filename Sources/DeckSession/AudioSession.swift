/// Audio focus plus the output's life: the output activates on the first grant and deactivates
/// once nothing has held focus or played for the idle timeout; each owner's stream gets the gain its
/// focus state calls for. Driven by explicit times in milliseconds, so it runs on a virtual clock in
/// tests and on the loop's clock in the runtime. A value: the coordinator that owns it is its shell.
public struct AudioSession {
    public enum Effect: Sendable, Equatable {
        case notify(FocusOwner, FocusChange)
        /// Move `owner`'s stream to `gain` over `rampMilliseconds`.
        case gain(FocusOwner, Float, rampMilliseconds: Double)
        case activate
        case deactivate
    }

    public struct Counters: Sendable, Equatable {
        public var granted = 0, delayed = 0, rejected = 0, activations = 0, deactivations = 0
    }

    public private(set) var policy: SessionPolicy
    public private(set) var arbiter: SessionArbiter
    public private(set) var isActive = false
    /// When the session became idle (no focus, no stream), while active.
    public private(set) var idleSince: UInt64?
    public private(set) var counters = Counters()
    /// Owners with an open stream.
    public private(set) var streams: Set<FocusOwner> = []
    private var gains: [FocusOwner: Float] = [:]

    public init(policy: SessionPolicy) {
        self.policy = policy
        arbiter = SessionArbiter(matrix: policy.matrix, ducking: policy.ducking)
        volume = policy.volumeGroups
    }

    /// Takes new settings for the decisions, ramps and timeouts from now on; holders keep their
    /// focus (a rule change does not revoke what was granted).
    /// The volume groups' indexes and mutes, applied with the focus gains.
    public private(set) var volume: VolumeGroups

    /// Changes the volume groups (validated by `change`), and ramps the streams whose gain moved.
    public mutating func changeVolume(now: UInt64, _ change: (inout VolumeGroups) throws(VolumeError) -> Void) throws(VolumeError) -> [Effect] {
        try change(&volume)
        return settle(now: now, ramp: policy.volumeRampMilliseconds)
    }

    public mutating func reconfigure(_ policy: SessionPolicy) {
        self.policy = policy
        arbiter.matrix = policy.matrix
        arbiter.ducking = policy.ducking
    }

    /// With `alwaysActive`, the output starts now and never deactivates.
    public mutating func start(now: UInt64) -> [Effect] {
        guard policy.alwaysActive, !isActive else { return [] }
        return activate()
    }

    public mutating func request(_ request: FocusRequest, now: UInt64) -> (result: FocusResult, effects: [Effect]) {
        let (result, notifications) = arbiter.request(request)
        var effects: [Effect] = []
        switch result {
        case .granted:
            counters.granted += 1
            if !isActive { effects += activate() }
        case .delayed: counters.delayed += 1
        case .rejected: counters.rejected += 1
        }
        effects += notifications.map { .notify($0.owner, $0.change) }
        return (result, effects + settle(now: now))
    }

    public mutating func abandon(_ owner: FocusOwner, now: UInt64) -> [Effect] {
        let notifications = arbiter.abandon(owner)
        return notifications.map { .notify($0.owner, $0.change) } + settle(now: now)
    }

    public mutating func streamOpened(_ owner: FocusOwner, now: UInt64) -> [Effect] {
        streams.insert(owner)
        return settle(now: now)
    }

    public mutating func streamClosed(_ owner: FocusOwner, now: UInt64) -> [Effect] {
        streams.remove(owner)
        gains[owner] = nil
        return settle(now: now)
    }

    /// Deactivates the output when the idle timeout has run out.
    public mutating func tick(now: UInt64) -> [Effect] {
        guard let since = idleSince, isActive, policy.idleTimeoutMilliseconds > 0,
              now >= since + policy.idleTimeoutMilliseconds else { return [] }
        isActive = false
        idleSince = nil
        counters.deactivations += 1
        return [.deactivate]
    }

    /// When `tick` should run next, if a deactivation is due.
    public var deadline: UInt64? {
        guard let since = idleSince, isActive, policy.idleTimeoutMilliseconds > 0 else { return nil }
        return since + policy.idleTimeoutMilliseconds
    }

    /// The gain `owner`'s stream should have now: its volume group's gain, times 1 playing, the
    /// duck level ducked, 0 paused or without focus.
    public func targetGain(_ owner: FocusOwner) -> Float {
        guard let holder = arbiter.holder(owner) else { return 0 }
        let focus: Float = switch holder.state {
        case .playing: 1
        case .ducked: policy.duckGain
        case .paused: 0
        }
        return focus * volume.gain(for: holder.request.context)
    }

    private mutating func activate() -> [Effect] {
        isActive = true
        counters.activations += 1
        return [.activate]
    }

    /// Gain changes for every stream whose target moved (over `ramp` when given), and the idle clock.
    private mutating func settle(now: UInt64, ramp forced: Double? = nil) -> [Effect] {
        var effects: [Effect] = []
        for owner in streams.sorted() {
            let target = targetGain(owner), previous = gains[owner]
            guard previous != target else { continue }
            gains[owner] = target
            // A stream just opened starts at its target already, fading in from its first sample.
            guard let previous else { continue }
            let ramp = forced ?? (target == 0 ? policy.pauseRampMilliseconds
                : target < previous ? policy.duckRampMilliseconds : policy.restoreRampMilliseconds)
            effects.append(.gain(owner, target, rampMilliseconds: ramp))
        }
        let idle = arbiter.holders.isEmpty && arbiter.pending == nil && streams.isEmpty && !policy.alwaysActive
        if !idle {
            idleSince = nil
        } else if isActive && idleSince == nil {
            idleSince = now
        }
        return effects
    }
}
