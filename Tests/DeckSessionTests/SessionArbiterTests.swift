import Testing
@testable import DeckSession
import DeckPlugins

/// Android Automotive's CarAudioFocus matrix, written out independently of the runtime's table:
/// rows are holders, columns requests, both in the order of `AudioContext.allCases`.
private let automotiveRows = [
    "music":         "E C E E E E C C E C C E",
    "navigation":    "C C E C E C C C E C C C",
    "voiceCommand":  "C R C E E R R R E C C R",
    "callRing":      "R C C C C R R C E C C R",
    "call":          "R C R C C C C R C C C R",
    "alarm":         "C C E E E C C C E C C R",
    "notification":  "C C E E E C C C E C C C",
    "systemSound":   "C C E E E C C C E C C C",
    "emergency":     "R R R R C R R R C C R R",
    "safety":        "C C C C C C C C C C C C",
    "vehicleStatus": "C C C C C C C C E C C C",
    "announcement":  "E C E E E E C C E C C E",
]

/// AOSP's CarAudioContext "contexts to duck", written out independently: each context ducks these.
private let duckedBy: [String: Set<String>] = [
    "music": [],
    "navigation": ["music", "callRing", "call", "alarm", "notification", "systemSound", "vehicleStatus", "announcement"],
    "voiceCommand": ["callRing"],
    "callRing": [],
    "call": ["callRing", "alarm", "notification", "vehicleStatus"],
    "alarm": ["music"],
    "notification": ["music", "alarm", "announcement"],
    "systemSound": ["music", "alarm", "announcement"],
    "emergency": ["call"],
    "safety": ["music", "navigation", "voiceCommand", "callRing", "call", "alarm", "notification", "systemSound",
               "vehicleStatus", "announcement"],
    "vehicleStatus": ["music", "callRing", "announcement"],
    "announcement": ["music"],
]

private func ducks(_ ducker: AudioContext, _ ducked: AudioContext) -> Bool { duckedBy[ducker.rawValue]!.contains(ducked.rawValue) }

private func cell(_ holder: AudioContext, _ request: AudioContext) -> String {
    automotiveRows[holder.rawValue]!.split(separator: " ")[AudioContext.allCases.firstIndex(of: request)!].description
}

private let holderOwner = FocusOwner.plugin("org.example.holder")
private let requestOwner = FocusOwner.plugin("org.example.request")

@Suite struct SessionArbiterTests {
    struct Cell: CustomTestStringConvertible, Sendable {
        var holder: AudioContext
        var request: AudioContext
        var testDescription: String { "\(holder.rawValue) × \(request.rawValue)" }
    }

    static let allCells = AudioContext.allCases.flatMap { holder in AudioContext.allCases.map { Cell(holder: holder, request: $0) } }

    /// A may-duck request tells the three interactions apart: reject refuses, exclusive pauses the
    /// holder, concurrent lets both play, and then the ducking table says who ducks whom.
    @Test(arguments: allCells)
    func everyCellOfTheDefaultMatrix(cell position: Cell) {
        var arbiter = SessionArbiter()
        _ = arbiter.request(FocusRequest(owner: holderOwner, context: position.holder, type: .gain))
        let (result, notifications) = arbiter.request(FocusRequest(owner: requestOwner, context: position.request,
                                                                    type: .gainTransientMayDuck))
        switch cell(position.holder, position.request) {
        case "R":
            #expect(result == .rejected("blocked by org.example.holder (\(position.holder.rawValue))"))
            #expect(notifications.isEmpty)
            #expect(arbiter.holders.map(\.request.owner) == [holderOwner])
        case "E":
            #expect(result == .granted)
            #expect(notifications.map(\.change) == [.lossTransient])
            #expect(arbiter.holder(holderOwner)?.state == .paused)
        default:
            #expect(result == .granted)
            let holderDucked = ducks(position.request, position.holder), requestDucked = ducks(position.holder, position.request)
            #expect(notifications.filter { $0.owner == holderOwner }.map(\.change) == (holderDucked ? [.duck] : []))
            #expect(notifications.filter { $0.owner == requestOwner }.map(\.change) == (requestDucked ? [.duck] : []))
            #expect(arbiter.holder(holderOwner)?.state == (holderDucked ? .ducked : .playing))
            #expect(arbiter.holder(requestOwner)?.state == (requestDucked ? .ducked : .playing))
        }
        #expect(InteractionMatrix.automotive[position.holder, position.request].rawValue.prefix(1).uppercased()
                == cell(position.holder, position.request))
    }

    @Test func aPermanentRequestTakesFocusFromEveryoneItDoesNotDuck() {
        var arbiter = SessionArbiter()
        _ = arbiter.request(FocusRequest(owner: holderOwner, context: .navigation, type: .gain))
        let (result, notifications) = arbiter.request(FocusRequest(owner: requestOwner, context: .music, type: .gain))
        #expect(result == .granted)
        #expect(notifications.map(\.change) == [.loss])  // concurrent, but a permanent request does not share
        #expect(arbiter.holders.map(\.request.owner) == [requestOwner])
    }

    @Test func theMostConservativeAnswerWinsWithSeveralHolders() {
        var arbiter = SessionArbiter()
        let call = FocusOwner.integrator("call"), prompt = FocusOwner.plugin("org.example.maps")
        _ = arbiter.request(FocusRequest(owner: call, context: .call, type: .gainTransient))
        #expect(arbiter.request(FocusRequest(owner: prompt, context: .navigation, type: .gainTransientMayDuck)).result == .granted)
        // navigation × music is concurrent, call × music rejects: rejected.
        let music = arbiter.request(FocusRequest(owner: .plugin("org.example.radio"), context: .music, type: .gain))
        #expect(music.result == .rejected("blocked by integrator:call (call)"))
        // Both let an alarm through.
        #expect(arbiter.request(FocusRequest(owner: .plugin("org.example.clock"), context: .alarm,
                                             type: .gainTransientMayDuck)).result == .granted)
        #expect(arbiter.holders.count == 3)
    }

    @Test func pausedHoldersStillBlockWhatTheyWouldReject() {
        var arbiter = SessionArbiter()
        _ = arbiter.request(FocusRequest(owner: holderOwner, context: .voiceCommand, type: .gain))
        _ = arbiter.request(FocusRequest(owner: .integrator("call"), context: .call, type: .gainTransient))
        #expect(arbiter.holder(holderOwner)?.state == .paused)
        // voiceCommand × navigation rejects even while the voice command is paused.
        let prompt = arbiter.request(FocusRequest(owner: requestOwner, context: .navigation, type: .gainTransientMayDuck))
        #expect(prompt.result == .rejected("blocked by org.example.holder (voiceCommand)"))
    }

    @Test func aRejectedRequestLeavesTheRequestersEarlierFocusAlone() {
        var arbiter = SessionArbiter()
        _ = arbiter.request(FocusRequest(owner: .integrator("call"), context: .call, type: .gain))
        _ = arbiter.request(FocusRequest(owner: holderOwner, context: .navigation, type: .gainTransientMayDuck))
        #expect(arbiter.request(FocusRequest(owner: holderOwner, context: .music, type: .gain)).result
                == .rejected("blocked by integrator:call (call)"))
        #expect(arbiter.holder(holderOwner)?.request.context == .navigation)
    }

    @Test func onlyOneRequestWaitsAndANewerOneReplacesIt() {
        var arbiter = SessionArbiter()
        let call = FocusOwner.integrator("call")
        _ = arbiter.request(FocusRequest(owner: call, context: .call, type: .gain))
        let first = arbiter.request(FocusRequest(owner: .plugin("a.a"), context: .music, type: .gain, acceptsDelayedFocus: true))
        #expect(first.result == .delayed("blocked by integrator:call (call)"))
        let second = arbiter.request(FocusRequest(owner: .plugin("b.b"), context: .music, type: .gain, acceptsDelayedFocus: true))
        #expect(second.result == .delayed("blocked by integrator:call (call)"))
        #expect(second.notifications.map(\.owner) == [.plugin("a.a")])
        #expect(second.notifications.map(\.change) == [.loss])
        let ended = arbiter.abandon(call)
        #expect(ended.map(\.owner) == [.plugin("b.b")])
        #expect(ended.map(\.change) == [.gain(shouldResume: false)])
        #expect(arbiter.pending == nil)
        #expect(arbiter.holders.map(\.request.owner) == [.plugin("b.b")])
    }

    @Test func focusComesBackOnlyWhenEveryBlockerHasLeft() {
        var arbiter = SessionArbiter()
        let ring = FocusOwner.integrator("ring"), call = FocusOwner.integrator("call")
        _ = arbiter.request(FocusRequest(owner: holderOwner, context: .music, type: .gain))
        _ = arbiter.request(FocusRequest(owner: ring, context: .callRing, type: .gainTransient))
        _ = arbiter.request(FocusRequest(owner: call, context: .call, type: .gainTransient))
        #expect(arbiter.holder(holderOwner)?.pausedBy == [ring, call])
        #expect(arbiter.abandon(ring).isEmpty)
        #expect(arbiter.abandon(call).map(\.change) == [.gain(shouldResume: true)])
        #expect(arbiter.holder(holderOwner)?.state == .playing)
    }

    @Test func aTransientLossWhileDuckedBecomesAPause() {
        var arbiter = SessionArbiter()
        _ = arbiter.request(FocusRequest(owner: holderOwner, context: .music, type: .gain))
        _ = arbiter.request(FocusRequest(owner: .plugin("org.example.maps"), context: .navigation, type: .gainTransientMayDuck))
        #expect(arbiter.holder(holderOwner)?.state == .ducked)
        let call = arbiter.request(FocusRequest(owner: .integrator("call"), context: .call, type: .gainTransient))
        #expect(call.notifications.first { $0.owner == holderOwner }?.change == .lossTransient)
        #expect(arbiter.holder(holderOwner)?.state == .paused)
    }

    @Test func theIntegratorCanReplaceSingleCells() throws {
        let matrix = try InteractionMatrix.automotive.overriding(["call": ["navigation": "reject"]])
        #expect(matrix[.call, .navigation] == .reject)
        #expect(matrix[.call, .alarm] == .concurrent)
        var arbiter = SessionArbiter(matrix: matrix)
        _ = arbiter.request(FocusRequest(owner: .integrator("call"), context: .call, type: .gain))
        #expect(arbiter.request(FocusRequest(owner: requestOwner, context: .navigation, type: .gainTransientMayDuck)).result
                == .rejected("blocked by integrator:call (call)"))
        #expect(throws: SessionConfigurationError.unknownContext("radio")) {
            try InteractionMatrix.automotive.overriding(["radio": ["call": "reject"]])
        }
        #expect(throws: SessionConfigurationError.invalid("session.matrix.call.music must be reject, exclusive or concurrent")) {
            try InteractionMatrix.automotive.overriding(["call": ["music": "maybe"]])
        }
    }

    @Test func entitlementsDecideWhichContextsAPluginMayRequest() {
        #expect(AudioContext.allowed(for: [.audio]) == [.music, .announcement])
        #expect(AudioContext.allowed(for: [.communication]) == [.call, .callRing, .voiceCommand, .notification])
        #expect(AudioContext.allowed(for: [.maps]) == [.navigation])
        #expect(AudioContext.allowed(for: [.charging]) == [.notification])
        #expect(AudioContext.allowed(for: []).isEmpty)
    }

    /// AAOS: a holder of gainTransientExclusive is alone; what the matrix would let play beside it
    /// is rejected (a notification during an exclusive call).
    @Test func anExclusiveHolderRejectsWhatWouldPlayBesideIt() {
        var arbiter = SessionArbiter()
        _ = arbiter.request(FocusRequest(owner: .integrator("phone"), context: .call, type: .gainTransientExclusive))
        #expect(InteractionMatrix.automotive[.call, .notification] == .concurrent)
        let chime = arbiter.request(FocusRequest(owner: requestOwner, context: .notification, type: .gainTransientMayDuck))
        #expect(chime.result == .rejected("blocked by integrator:phone (call)"))
        // A non-exclusive call lets the same chime play, ducked by the call.
        var shared = SessionArbiter()
        _ = shared.request(FocusRequest(owner: .integrator("phone"), context: .call, type: .gainTransient))
        #expect(shared.request(FocusRequest(owner: requestOwner, context: .notification, type: .gainTransientMayDuck)).result == .granted)
        #expect(shared.holder(requestOwner)?.state == .ducked)
        #expect(shared.holder(.integrator("phone"))?.state == .playing)
    }

    /// AAOS: delayed focus is for permanent (gain) requests only; a transient request that
    /// accepts it is decided as if it did not: rejected when blocked, granted otherwise.
    @Test(arguments: [FocusRequestType.gainTransient, .gainTransientMayDuck, .gainTransientExclusive])
    func aTransientRequestThatAcceptsDelayIsDecidedAtOnce(type: FocusRequestType) {
        var arbiter = SessionArbiter()
        _ = arbiter.request(FocusRequest(owner: .integrator("phone"), context: .call, type: .gainTransient))
        let blocked = arbiter.request(FocusRequest(owner: requestOwner, context: .music, type: type, acceptsDelayedFocus: true))
        guard case .rejected = blocked.result else { Issue.record("\(blocked.result)"); return }
        #expect(arbiter.pending == nil)
        var free = SessionArbiter()
        #expect(free.request(FocusRequest(owner: requestOwner, context: .navigation, type: type, acceptsDelayedFocus: true)).result == .granted)
    }

    /// An owner holds one request, as an AAOS client does: asking for another context replaces it.
    @Test func anOwnerAskingForAnotherContextReplacesItsRequest() {
        var arbiter = SessionArbiter()
        _ = arbiter.request(FocusRequest(owner: holderOwner, context: .music, type: .gain))
        let again = arbiter.request(FocusRequest(owner: holderOwner, context: .announcement, type: .gain))
        #expect(again.result == .granted)
        #expect(arbiter.holders.map(\.request.context) == [.announcement])
        #expect(again.notifications.isEmpty)  // nobody else was affected
    }
}
