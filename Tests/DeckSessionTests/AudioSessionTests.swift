import Glibc
import Testing
@testable import DeckSession

/// Whole scenarios on a virtual clock: every call says what time it is; nothing sleeps.
@Suite struct AudioSessionTests {
    let radio = FocusOwner.plugin("org.example.radio")
    let maps = FocusOwner.plugin("org.example.maps")
    let podcast = FocusOwner.plugin("org.example.podcast")
    let phone = FocusOwner.integrator("call")
    let duck = Float(pow(10, -14.0 / 20))

    @Test func musicPromptCallResumeAndIdleDeactivation() {
        var session = AudioSession(policy: SessionPolicy())
        // Music starts: the output activates on the first grant.
        var (result, effects) = session.request(FocusRequest(owner: radio, context: .music, type: .gain), now: 0)
        #expect(result == .granted)
        #expect(effects == [.activate])
        // A stream opens at its target gain (fading in from its first sample): no gain effect.
        #expect(session.streamOpened(radio, now: 0) == [])
        #expect(session.targetGain(radio) == 1)

        // A navigation prompt ducks the music to −14 dB over 500 ms …
        (result, effects) = session.request(FocusRequest(owner: maps, context: .navigation, type: .gainTransientMayDuck), now: 10_000)
        #expect(result == .granted)
        #expect(effects == [.notify(radio, .duck), .gain(radio, duck, rampMilliseconds: 500)])
        #expect(session.streamOpened(maps, now: 10_000) == [])
        // … and restores it over 500 ms when the prompt ends.
        _ = session.streamClosed(maps, now: 13_000)
        #expect(session.abandon(maps, now: 13_000) == [.notify(radio, .unduck), .gain(radio, 1, rampMilliseconds: 500)])

        // An incoming call pauses the music (call × music is exclusive, the call is transient).
        (result, effects) = session.request(FocusRequest(owner: phone, context: .call, type: .gainTransient), now: 20_000)
        #expect(result == .granted)
        #expect(effects == [.notify(radio, .lossTransient), .gain(radio, 0, rampMilliseconds: 20)])
        // A prompt during the call plays concurrently (call × navigation is concurrent).
        (result, effects) = session.request(FocusRequest(owner: maps, context: .navigation, type: .gainTransientMayDuck), now: 25_000)
        #expect(result == .granted)
        #expect(session.arbiter.holder(radio)?.state == .paused)
        #expect(session.abandon(maps, now: 27_000).allSatisfy { if case .notify(radio, _) = $0 { false } else { true } })

        // The call ends: the music resumes with shouldResume and fades back in.
        #expect(session.abandon(phone, now: 60_000) == [.notify(radio, .gain(shouldResume: true)), .gain(radio, 1, rampMilliseconds: 500)])

        // Music stops; after 5 s of nothing the output deactivates, not before.
        _ = session.streamClosed(radio, now: 90_000)
        _ = session.abandon(radio, now: 90_000)
        #expect(session.deadline == 95_000)
        #expect(session.tick(now: 94_999).isEmpty)
        #expect(session.tick(now: 95_000) == [.deactivate])
        #expect(!session.isActive)
        #expect(session.counters == AudioSession.Counters(granted: 4, delayed: 0, rejected: 0, activations: 1, deactivations: 1))
    }

    @Test func spokenAudioPausesForAPromptInsteadOfDucking() {
        var session = AudioSession(policy: SessionPolicy())
        _ = session.request(FocusRequest(owner: podcast, context: .music, type: .gain, pausesOnDuck: true), now: 0)
        _ = session.streamOpened(podcast, now: 0)
        let (_, effects) = session.request(FocusRequest(owner: maps, context: .navigation, type: .gainTransientMayDuck), now: 1_000)
        #expect(effects == [.notify(podcast, .lossTransient), .gain(podcast, 0, rampMilliseconds: 20)])
        #expect(session.abandon(maps, now: 4_000) == [.notify(podcast, .gain(shouldResume: true)), .gain(podcast, 1, rampMilliseconds: 500)])
    }

    @Test func aDelayedRequestIsGrantedWhenTheCallEnds() {
        var session = AudioSession(policy: SessionPolicy())
        _ = session.request(FocusRequest(owner: phone, context: .call, type: .gain), now: 0)
        let (result, effects) = session.request(FocusRequest(owner: radio, context: .music, type: .gain, acceptsDelayedFocus: true), now: 1_000)
        #expect(result == .delayed("blocked by integrator:call (call)"))
        #expect(effects.isEmpty)
        #expect(session.abandon(phone, now: 30_000) == [.notify(radio, .gain(shouldResume: false))])
        #expect(session.arbiter.holder(radio)?.state == .playing)
        #expect(session.counters.delayed == 1)
    }

    @Test func backToBackPromptsInsideTheIdleWindowDoNotFlapTheOutput() {
        var session = AudioSession(policy: SessionPolicy())
        for start in stride(from: UInt64(0), to: 20_000, by: 4_000) {
            _ = session.request(FocusRequest(owner: maps, context: .navigation, type: .gainTransientMayDuck), now: start)
            _ = session.streamOpened(maps, now: start)
            _ = session.streamClosed(maps, now: start + 1_000)
            _ = session.abandon(maps, now: start + 1_000)
            #expect(session.tick(now: start + 3_999).isEmpty)  // the next prompt comes within 5 s
        }
        #expect(session.counters.activations == 1)
        #expect(session.counters.deactivations == 0)
        #expect(session.tick(now: 17_000 + 5_000) == [.deactivate])
    }

    @Test func anIdleTimeoutOfZeroNeverDeactivates() {
        var policy = SessionPolicy()
        policy.idleTimeoutMilliseconds = 0
        var session = AudioSession(policy: policy)
        _ = session.request(FocusRequest(owner: radio, context: .music, type: .gain), now: 0)
        _ = session.abandon(radio, now: 1)
        #expect(session.deadline == nil)
        #expect(session.tick(now: 10_000_000).isEmpty)
        #expect(session.isActive)
    }

    @Test func anAlwaysActiveSessionStartsAtOnceAndStaysUp() {
        var policy = SessionPolicy()
        policy.alwaysActive = true
        var session = AudioSession(policy: policy)
        #expect(session.start(now: 0) == [.activate])
        #expect(session.deadline == nil)
        #expect(session.tick(now: 60_000).isEmpty)
    }

    @Test func aStreamWithoutFocusIsSilent() {
        var session = AudioSession(policy: SessionPolicy())
        _ = session.request(FocusRequest(owner: radio, context: .music, type: .gain), now: 0)
        _ = session.streamOpened(radio, now: 0)
        let effects = session.request(FocusRequest(owner: podcast, context: .music, type: .gain), now: 5).effects
        #expect(effects == [.notify(radio, .loss), .gain(radio, 0, rampMilliseconds: 20)])
        #expect(session.targetGain(radio) == 0)
    }

    @Test func policyComesFromConfigWithNamedErrors() throws {
        var policy = SessionPolicy()
        try policy.apply(["duckDb": -20, "duckRampMs": 250, "restoreRampMs": 1000, "idleTimeoutMs": 0,
                          "starvationMs": 10_000, "alwaysActive": true, "matrix": ["call": ["navigation": "reject"]]])
        #expect(abs(Double(policy.duckGain) - 0.1) < 1e-6)
        #expect(policy.duckRampMilliseconds == 250 && policy.restoreRampMilliseconds == 1000)
        #expect(policy.idleTimeoutMilliseconds == 0 && policy.starvationMilliseconds == 10_000 && policy.alwaysActive)
        #expect(policy.matrix[.call, .navigation] == .reject)
        #expect(throws: SessionConfigurationError.invalid("session.duckDb must be -96 to 0 dB")) { try policy.apply(["duckDb": 6]) }
        #expect(throws: SessionConfigurationError.self) { try policy.apply(["duck": 1]) }
    }
}
