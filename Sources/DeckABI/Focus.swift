import CDeckPlugin

/// How long a request wants the output, as Android's audio focus gains (`deck_focus_type_t`).
public enum FocusRequestType: String, Sendable, CaseIterable {
    /// Until abandoned: others lose focus for good.
    case gain
    /// For a while: others pause and resume after.
    case gainTransient
    /// For a while, and others may keep playing ducked (a navigation prompt).
    case gainTransientMayDuck
    /// For a while, alone (a voice recognizer listening).
    case gainTransientExclusive

    package var isTransient: Bool { self != .gain }
    package var allowsDucking: Bool { self == .gainTransientMayDuck }

    /// Its `deck_focus_type_t` value.
    public var code: Int32 {
        let type: deck_focus_type_t = switch self {
        case .gain: DECK_FOCUS_GAIN
        case .gainTransient: DECK_FOCUS_GAIN_TRANSIENT
        case .gainTransientMayDuck: DECK_FOCUS_GAIN_TRANSIENT_MAY_DUCK
        case .gainTransientExclusive: DECK_FOCUS_GAIN_TRANSIENT_EXCLUSIVE
        }
        return Int32(type.rawValue)
    }

    /// The type behind a `deck_focus_type_t` value; nil for any other number.
    public init?(code: Int32) {
        guard let type = FocusRequestType.allCases.first(where: { $0.code == code }) else { return nil }
        self = type
    }
}

/// The answer to a request (`deck_focus_result_t`, with the reason when not granted).
public enum FocusResult: Sendable, Equatable {
    case granted
    /// Waiting; granted when the blockers leave. The reason names them.
    case delayed(String)
    case rejected(String)

    /// Its `deck_focus_result_t` value.
    public var code: Int32 {
        let result: deck_focus_result_t = switch self {
        case .granted: DECK_FOCUS_GRANTED
        case .delayed: DECK_FOCUS_DELAYED
        case .rejected: DECK_FOCUS_REJECTED
        }
        return Int32(result.rawValue)
    }

    /// The answer behind a `deck_focus_result_t` value, with the host's reason; any other number rejects.
    public init(code: Int32, reason: String) {
        switch code {
        case Int32(DECK_FOCUS_GRANTED.rawValue): self = .granted
        case Int32(DECK_FOCUS_DELAYED.rawValue): self = .delayed(reason)
        default: self = .rejected(reason)
        }
    }
}

/// What a holder is told when its focus changes (Android's focus changes, plus duck/unduck,
/// which the runtime applies itself; the plugin is told so it can show it): `deck_focus_change_t`.
public enum FocusChange: Sendable, Equatable {
    /// Focus (re)gained: a delayed request granted, or a transient loss ended (`shouldResume`).
    case gain(shouldResume: Bool)
    /// Lost for good: stop and release.
    case loss
    /// Lost for a while: pause; focus comes back by itself.
    case lossTransient
    /// Still playing, ducked by the runtime.
    case duck
    /// No longer ducked.
    case unduck

    /// Its `deck_focus_change_t` value.
    public var code: deck_focus_change_t {
        switch self {
        case .gain: DECK_FOCUS_CHANGE_GAIN
        case .unduck: DECK_FOCUS_CHANGE_UNDUCK
        case .loss: DECK_FOCUS_CHANGE_LOSS
        case .lossTransient: DECK_FOCUS_CHANGE_LOSS_TRANSIENT
        case .duck: DECK_FOCUS_CHANGE_DUCK
        }
    }

    /// The change behind a `deck_focus_change_t` value; nil for any other number.
    public init?(code: Int32, shouldResume: Bool) {
        switch code {
        case Int32(DECK_FOCUS_CHANGE_GAIN.rawValue): self = .gain(shouldResume: shouldResume)
        case Int32(DECK_FOCUS_CHANGE_UNDUCK.rawValue): self = .unduck
        case Int32(DECK_FOCUS_CHANGE_LOSS.rawValue): self = .loss
        case Int32(DECK_FOCUS_CHANGE_LOSS_TRANSIENT.rawValue): self = .lossTransient
        case Int32(DECK_FOCUS_CHANGE_DUCK.rawValue): self = .duck
        default: return nil
        }
    }
}
