/// Who holds or asks for audio focus: a plugin, or the integrator (a chime, a call from the car).
public enum FocusOwner: Hashable, Sendable, Comparable, CustomStringConvertible {
    case plugin(String)
    case integrator(String)

    public var description: String {
        switch self {
        case .plugin(let id): id
        case .integrator(let name): "integrator:\(name)"
        }
    }

    public static func < (a: FocusOwner, b: FocusOwner) -> Bool { a.description < b.description }
}

/// One request for the output.
public struct FocusRequest: Sendable, Equatable {
    public var owner: FocusOwner
    public var context: AudioContext
    public var type: FocusRequestType
    /// Wait (at most one request waits) instead of being rejected. Only a `gain` request waits: a
    /// transient one that asks to is decided as if it had not (AAOS's rule), granted or rejected.
    public var acceptsDelayedFocus = false
    /// Spoken audio: pause instead of being ducked.
    public var pausesOnDuck = false

    public init(owner: FocusOwner, context: AudioContext, type: FocusRequestType,
                acceptsDelayedFocus: Bool = false, pausesOnDuck: Bool = false) {
        self.owner = owner
        self.context = context
        self.type = type
        self.acceptsDelayedFocus = acceptsDelayedFocus
        self.pausesOnDuck = pausesOnDuck
    }

    /// Whether the request may wait for delayed focus: it accepts it and is a `gain` request.
    var waits: Bool { acceptsDelayedFocus && type == .gain }
}


/// A granted request and what others have done to it.
public struct FocusHolder: Sendable, Equatable {
    public var request: FocusRequest
    /// Transient requests that paused this holder; it resumes when all have left.
    public var pausedBy: Set<FocusOwner> = []
    /// The requests ducking this holder, in holder order: a list, so a decision compares it with
    /// the last one without hashing (most holders' duckers do not change).
    public internal(set) var duckers: [FocusOwner] = []

    /// Requests ducking this holder.
    public var duckedBy: Set<FocusOwner> { Set(duckers) }

    public enum State: String, Sendable { case playing, ducked, paused }

    /// Spoken audio (`pausesOnDuck`) pauses where it would be ducked.
    public var state: State {
        !pausedBy.isEmpty || request.pausesOnDuck && !duckers.isEmpty ? .paused : !duckers.isEmpty ? .ducked : .playing
    }
}

/// Audio focus by the interaction matrix (who may play at all) and the ducking table (among those
/// playing at once, who ducks whom): who plays, who is ducked, who is paused and resumed.
/// Pure logic (no clock, no I/O): each call returns the notifications to send.
public struct SessionArbiter: Sendable {
    public var matrix: InteractionMatrix
    public var ducking: DuckingTable
    /// Holders in grant order, paused ones included.
    public private(set) var holders: [FocusHolder] = []
    /// The one request waiting for delayed focus.
    public private(set) var pending: FocusRequest?

    public typealias Notification = (owner: FocusOwner, change: FocusChange)

    public init(matrix: InteractionMatrix = .automotive, ducking: DuckingTable = .automotive) {
        self.matrix = matrix
        self.ducking = ducking
    }

    public func holder(_ owner: FocusOwner) -> FocusHolder? { holders.first { $0.request.owner == owner } }

    /// Whether `owner` holds focus (paused or not) or waits for it.
    public func holdsOrAwaits(_ owner: FocusOwner) -> Bool { holder(owner) != nil || pending?.owner == owner }

    /// Decides `request`. An owner holds one request, as an AAOS client does: asking again, for
    /// the same or another context, replaces its earlier request (unless it is rejected: a
    /// rejected request changes nothing, not even the requester's earlier focus).
    public mutating func request(_ request: FocusRequest) -> (result: FocusResult, notifications: [Notification]) {
        if let blockers = blockers(of: request) {
            let reason = "blocked by " + blockers.map { "\($0.owner) (\($0.context.rawValue))" }.joined(separator: ", ")
            guard request.waits else { return (.rejected(reason), []) }
            var notifications = removeSilently(request.owner)
            if let replaced = pending, replaced.owner != request.owner { notifications.append((replaced.owner, .loss)) }
            pending = request
            return (.delayed(reason), notifications)
        }
        var notifications = removeSilently(request.owner)
        if pending?.owner == request.owner { pending = nil }
        notifications += grant(request)
        return (.granted, notifications)
    }

    /// Removes `owner`'s request (held, paused or pending); those it paused or ducked recover, and a
    /// pending request that is no longer blocked is granted.
    public mutating func abandon(_ owner: FocusOwner) -> [Notification] {
        if pending?.owner == owner { pending = nil }
        var notifications = removeSilently(owner)
        if let waiting = pending, blockers(of: waiting) == nil {
            pending = nil
            notifications += grant(waiting)
            notifications.append((waiting.owner, .gain(shouldResume: false)))
        }
        return notifications
    }

    /// The other holders whose matrix cell rejects `request` (paused holders count: they will
    /// resume), or nil. A holder that asked for `gainTransientExclusive` is alone: it also blocks
    /// what would otherwise play beside it (AAOS rejects a notification during an exclusive call).
    private func blockers(of request: FocusRequest) -> [FocusRequest]? {
        let blocks = { (holder: FocusHolder) -> Bool in
            guard holder.request.owner != request.owner else { return false }
            let interaction = self.matrix[holder.request.context, request.context]
            return interaction == .reject || interaction == .concurrent && holder.request.type == .gainTransientExclusive
        }
        guard holders.contains(where: blocks) else { return nil }
        return holders.filter(blocks).map(\.request)
    }

    private mutating func grant(_ request: FocusRequest) -> [Notification] {
        let before = states
        var notifications: [Notification] = []
        var kept: [FocusHolder] = []
        for var holder in holders {
            // Concurrent with a request that lets others play on: both play, the table ducks.
            let playsOn = matrix[holder.request.context, request.context] == .concurrent && request.type.allowsDucking
            if !playsOn {
                guard request.type.isTransient else {
                    notifications.append((holder.request.owner, .loss))
                    continue
                }
                holder.pausedBy.insert(request.owner)
            }
            kept.append(holder)
        }
        holders = kept + [FocusHolder(request: request)]
        return notifications + settleDucking(from: before)
    }

    /// Drops `owner`'s holder entry and its effect on the others, telling those that recover.
    private mutating func removeSilently(_ owner: FocusOwner) -> [Notification] {
        guard holders.contains(where: { $0.request.owner == owner || !$0.pausedBy.isEmpty }) else { return [] }
        let before = states
        holders.removeAll { $0.request.owner == owner }
        for index in holders.indices where !holders[index].pausedBy.isEmpty { holders[index].pausedBy.remove(owner) }
        return settleDucking(from: before)
    }

    /// Each holder's state, in holder order (a handful: a list is cheaper than a dictionary).
    private var states: [(owner: FocusOwner, state: FocusHolder.State)] { holders.map { ($0.request.owner, $0.state) } }

    /// Recomputes who ducks whom among the holders not paused, and tells every holder whose state
    /// moved (one that was just granted counts from playing).
    private mutating func settleDucking(from before: [(owner: FocusOwner, state: FocusHolder.State)]) -> [Notification] {
        let duckers = holders.indices.filter { holders[$0].pausedBy.isEmpty }
        var ducked: [FocusOwner] = []
        ducked.reserveCapacity(duckers.count)
        for index in holders.indices {
            let mine = holders[index].request
            ducked.removeAll(keepingCapacity: true)
            for other in duckers where other != index && ducking.ducks(holders[other].request.context, mine.context) {
                ducked.append(holders[other].request.owner)
            }
            if ducked != holders[index].duckers { holders[index].duckers = ducked }
        }
        var notifications: [Notification] = []
        var earlier = before[...]  // the holders that stayed keep their order: one pass finds each
        for holder in holders {
            var was = FocusHolder.State.playing
            if let found = earlier.firstIndex(where: { $0.owner == holder.request.owner }) {
                was = earlier[found].state
                earlier = earlier[(found + 1)...]
            }
            let now = holder.state
            switch (was, now) {
            case (.paused, .paused), (.playing, .playing), (.ducked, .ducked): break
            case (.paused, _):
                notifications.append((holder.request.owner, .gain(shouldResume: true)))
                if now == .ducked { notifications.append((holder.request.owner, .duck)) }
            case (_, .paused): notifications.append((holder.request.owner, .lossTransient))
            case (.playing, .ducked): notifications.append((holder.request.owner, .duck))
            case (.ducked, .playing): notifications.append((holder.request.owner, .unduck))
            }
        }
        return notifications
    }
}
