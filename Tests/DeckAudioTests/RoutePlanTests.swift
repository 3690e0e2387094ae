import Testing
@testable import DeckAudio

/// Which mix each sink takes: app audio to the chosen sinks, pinned audio to its sink.
@Suite struct RoutePlanTests {
    let sinks = [(id: 1, name: "Cabin"), (id: 2, name: "Rear"), (id: 3, name: "Recorder")]

    func plan(selected: Set<String>?, pinnedTo pins: Set<String> = [], previous: RoutePlan = RoutePlan()) throws -> RoutePlan {
        try RoutePlan.make(sinks: sinks, selected: selected, pinnedTo: pins, previous: previous)
    }

    @Test func byDefaultEverySinkTakesOneMixOfEverything() throws {
        let plan = try plan(selected: nil, pinnedTo: [])
        #expect(plan.sinkBuses == [1: 0, 2: 0, 3: 0])
        #expect(plan.activeBuses == 0b1)
        #expect(plan.streamBuses(pin: nil) == 0b1)
    }

    @Test func choosingOneSinkLeavesTheOthersASilentMix() throws {
        let plan = try plan(selected: ["Rear"])
        #expect(plan.sinkBuses[2] == 0)  // app audio stays on the bus it was on
        #expect(plan.sinkBuses[1] == plan.sinkBuses[3])
        #expect(plan.sinkBuses[1] != 0)
        #expect(plan.buses[plan.sinkBuses[1]!] == 0)
        #expect(plan.streamBuses(pin: nil) == 0b1)
    }

    @Test func pinnedAudioStaysOnItsSinkWhenAppAudioMoves() throws {
        let plan = try plan(selected: ["Rear"], pinnedTo: ["Cabin"])
        let cabin = plan.sinkBuses[1]!, rear = plan.sinkBuses[2]!, recorder = plan.sinkBuses[3]!
        #expect(Set([cabin, rear, recorder]).count == 3)
        #expect(plan.streamBuses(pin: "Cabin") == 1 << cabin)
        #expect(plan.streamBuses(pin: nil) == 1 << rear)
        #expect(plan.activeBuses.nonzeroBitCount == 3)
        // Choosing the pinned sink for app audio too gives it everything.
        let both = try self.plan(selected: ["Cabin", "Rear"], pinnedTo: ["Cabin"], previous: plan)
        let full = both.sinkBuses[1]!
        #expect(both.streamBuses(pin: "Cabin") == 1 << full)
        #expect(both.streamBuses(pin: nil) == 1 << full | 1 << both.sinkBuses[2]!)
    }

    @Test func aPinToASinkThatIsNotOpenIsHeardWithAppAudio() throws {
        let plan = try plan(selected: ["Rear"], pinnedTo: ["Gone"])
        #expect(plan.pins.isEmpty)
        #expect(plan.streamBuses(pin: "Gone") == plan.streamBuses(pin: nil))
    }

    @Test func aChoiceNamingNoOpenSinkFallsBackToEverySink() throws {
        #expect(try plan(selected: ["Gone"]).sinkBuses == [1: 0, 2: 0, 3: 0])
    }

    @Test func aBusKeepsItsMixAcrossChangesSoUnaffectedSinksDoNotSwitchEncoders() throws {
        let first = try plan(selected: ["Rear"], pinnedTo: ["Cabin"])
        let second = try plan(selected: ["Recorder"], pinnedTo: ["Cabin"], previous: first)
        #expect(second.sinkBuses[1] == first.sinkBuses[1])  // the cabin's pinned-only mix did not move
        #expect(second.sinkBuses[3] == first.sinkBuses[2])  // app audio's bus went with the choice
    }

    @Test func withNoSinkBusZeroStillRuns() throws {
        let plan = try RoutePlan.make(sinks: [], selected: nil, pinnedTo: [], previous: RoutePlan())
        #expect(plan.activeBuses == 0b1)
    }

    @Test func moreMixesThanBusesIsRefused() {
        let many = (1...6).map { (id: $0, name: "S\($0)") }
        #expect(throws: RoutingError.tooManyMixes(needed: 5, buses: 4)) {
            try RoutePlan.make(sinks: many, selected: ["S1", "S2"], pinnedTo: ["S2", "S3", "S4"], previous: RoutePlan())
        }
    }
}
