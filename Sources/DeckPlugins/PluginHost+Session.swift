import CDeckPlugin
import DeckSession

/// `deck.session` on the host side: a plugin requests and abandons audio focus (deck/ext/session.h).
extension PluginHost {
    static var sessionExtension: deck_host_session_t {
        var session = deck_host_session_t()
        session.request_focus = { host, request, result in
            guard let owner = PluginHost.from(host) else { return DeckStatus.invalid.rawValue }
            return owner.onLoop("request_focus") { owner in
                guard let request, let result else { return PluginCallError(status: .invalid, message: "request_focus: NULL argument") }
                let name = request.pointee.context.map { String(cString: $0) } ?? ""
                guard let context = AudioContext(rawValue: name) else {
                    return PluginCallError(status: .invalid, message: "request_focus: unknown context \"\(name)\"; known: "
                                           + AudioContext.allCases.map(\.rawValue).joined(separator: ", "))
                }
                guard let type = FocusRequestType(code: request.pointee.type) else {
                    return PluginCallError(status: .invalid, message: "request_focus: unknown focus type \(request.pointee.type) "
                                           + "(DECK_FOCUS_GAIN 1 to DECK_FOCUS_GAIN_TRANSIENT_EXCLUSIVE 4)")
                }
                let flags = request.pointee.flags
                switch owner.actions.requestFocus(owner.instance, context, type, flags & DECK_FOCUS_FLAG_ACCEPTS_DELAYED != 0,
                                                  flags & DECK_FOCUS_FLAG_PAUSES_ON_DUCK != 0) {
                case .failure(let error): return error
                case .success(let answer):
                    result.pointee = answer.code
                    switch answer {
                    case .granted: break
                    case .delayed(let reason): _ = owner.fail(.ok, "focus delayed: \(reason)")
                    case .rejected(let reason): _ = owner.fail(.ok, "focus rejected: \(reason)")
                    }
                }
                return nil
            }
        }
        session.abandon_focus = { host in
            PluginHost.from(host)?.onLoop("abandon_focus") { $0.actions.abandonFocus($0.instance) } ?? DeckStatus.invalid.rawValue
        }
        return session
    }
}
