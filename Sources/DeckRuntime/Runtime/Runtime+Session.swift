import DeckSession
import DeckPlugins

extension Runtime {
    /// The integrator's own request (RPC `session.request`, the embedding API): any context, e.g. a
    /// chime the car plays on its own amplifier while Deck's streams duck.
    public func requestFocus(_ request: FocusRequest) -> FocusResult {
        let (result, effects) = session.request(request, now: loop.now)
        logger.info("session", "\(request.owner) asked for \(request.context.rawValue) (\(request.type.rawValue)): \(result)")
        apply(effects)
        return result
    }

    public func abandonFocus(_ owner: FocusOwner) {
        logger.info("session", "\(owner) abandoned focus")
        apply(session.abandon(owner, now: loop.now))
    }

    func requestFocus(instance: Int, context: AudioContext, type: FocusRequestType, acceptsDelayed: Bool,
                      pausesOnDuck: Bool) -> Result<FocusResult, PluginCallError> {
        if let problem = notActive(instance, call: "request_focus") { return .failure(problem) }
        let plugin = instanceNumbers[instance]!
        guard AudioContext.allowed(for: plugin.entitlements).contains(context) else {
            let entitlements = Entitlement.list(plugin.entitlements)
            let needed = context.entitlementsAllowing.map(\.rawValue)
            let need = needed.isEmpty ? "only the integrator may request it" : "that needs the \(needed.joined(separator: " or ")) entitlement"
            return .failure(PluginCallError(status: .notEntitled,
                                            message: "request_focus: \(plugin.id) may not request \(context.rawValue): \(need) (it has: \(entitlements))"))
        }
        let request = FocusRequest(owner: .plugin(plugin.id), context: context, type: type,
                                   acceptsDelayedFocus: acceptsDelayed, pausesOnDuck: pausesOnDuck)
        return .success(requestFocus(request))
    }

    /// Why a plugin cannot make `call` now, naming its state, or nil when it is active.
    func notActive(_ instance: Int, call: String) -> PluginCallError? {
        guard let plugin = instanceNumbers[instance] else {
            return PluginCallError(status: .state, message: "\(call): the plugin is still loading (in init); call it once the plugin is active")
        }
        guard plugin.state == .active else {
            return PluginCallError(status: .state, message: "\(call): \(plugin.id) is \(plugin.state.rawValue); call it once the plugin is active")
        }
        return nil
    }

    func abandonFocus(instance: Int) -> PluginCallError? {
        guard let plugin = instanceNumbers[instance] else { return nil }
        abandonFocus(.plugin(plugin.id))
        return nil
    }

    /// Carries out what the session decided: start or stop the output, tell holders, move gains.
    func apply(_ effects: [AudioSession.Effect]) {
        for effect in effects {
            switch effect {
            case .activate:
                activationTimer?.start(after: 0) { [unowned self] in startAudioRun() }
                logger.info("session", "output activated")
                plugins.forEach { $0.notifySession(active: true) }
                starvationWatchdog?.start(after: 1_000, repeat: 1_000) { [unowned self] in
                    checkStarvation()
                    reportBadSamples()
                }
            case .deactivate:
                activationTimer?.stop()
                endingOutput = audio.isRunning
                audio.stop()
                starvationWatchdog?.stop()
                logger.info("session", "output deactivated after \(session.policy.idleTimeoutMilliseconds) ms idle")
                plugins.forEach { $0.notifySession(active: false) }
            case .notify(let owner, let change):
                logger.info("session", "\(owner): \(change)")
                if case .plugin(let id) = owner { plugin(id: id)?.notifyFocus(change) }
            case .gain(let owner, let gain, let ramp):
                guard case .plugin(let id) = owner, let slot = plugin(id: id)?.streamSlot else { continue }
                audio.rampGain(slot, to: gain, milliseconds: ramp, curve: gain == 0 ? .linear : .exponential)
            }
        }
        if !effects.isEmpty { publish("session.changed", SessionMethods.state(self)) }
        if let deadline = session.deadline {
            sessionTimer?.start(after: deadline > loop.now ? deadline - loop.now : 0) { [unowned self] in
                apply(session.tick(now: loop.now))
            }
        } else {
            sessionTimer?.stop()
        }
    }

    /// Reports holders that play, unpaused, but have rendered only silence for the starvation time.
    func checkStarvation() {
        let limit = session.policy.starvationMilliseconds
        guard limit > 0 else { return }
        for plugin in plugins {
            let owner = FocusOwner.plugin(plugin.id)
            guard plugin.streamSlot != nil, let holder = session.arbiter.holder(owner), holder.state != .paused else {
                starving.remove(plugin.id)
                continue
            }
            let silentMilliseconds = Double(plugin.streamCounters.silentRun.load(ordering: .relaxed)) * configuration.audio.frameSize.milliseconds
            if silentMilliseconds < Double(limit) {
                starving.remove(plugin.id)
            } else if starving.insert(plugin.id).inserted {
                starvationReports += 1
                logger.warning("session", "\(plugin.id) holds \(holder.request.context.rawValue) focus but has played only silence "
                               + "for \(Int(silentMilliseconds / 1000)) s: it is starving the others")
            }
        }
    }

    /// Names, once per plugin and kind, a plugin whose stream was silenced for NaN/infinity or that
    /// wrote beyond full scale; the counts stay in `apps.list` and `runtime.info`.
    func reportBadSamples() {
        for plugin in plugins {
            let counters = plugin.streamCounters
            if counters.invalidFrames.load(ordering: .relaxed) > 0, sampleReports.insert("\(plugin.id) invalid").inserted {
                logger.warning("audio", "\(plugin.id) rendered NaN or infinite samples; those frames were silenced "
                               + "(counted in apps.list as invalidFrames)")
            }
            if counters.clippedFrames.load(ordering: .relaxed) > 0, sampleReports.insert("\(plugin.id) clipped").inserted {
                logger.warning("audio", "\(plugin.id) rendered samples beyond full scale (±1.0); the mix limits them "
                               + "(counted in apps.list as clippedFrames)")
            }
        }
    }
}
