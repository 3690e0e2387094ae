import CDeckPlugin

/// How long a focus request wants the output (`deck_focus_type_t`).
public enum FocusType: Sendable {
    case gain, gainTransient, gainTransientMayDuck, gainTransientExclusive

    /// The ABI's code for it.
    var code: Int32 {
        let type: deck_focus_type_t = switch self {
        case .gain: DECK_FOCUS_GAIN
        case .gainTransient: DECK_FOCUS_GAIN_TRANSIENT
        case .gainTransientMayDuck: DECK_FOCUS_GAIN_TRANSIENT_MAY_DUCK
        case .gainTransientExclusive: DECK_FOCUS_GAIN_TRANSIENT_EXCLUSIVE
        }
        return Int32(type.rawValue)
    }
}

/// The host's answer to a focus request; when not granted, the reason names the blockers.
public enum FocusResult: Sendable, Equatable {
    case granted
    case delayed(String)
    case rejected(String)
}

/// A change of the plugin's focus (`deck_focus_change_t`).
public enum FocusChange: Sendable, Equatable {
    case gain(shouldResume: Bool)
    case unduck
    case loss
    case lossTransient
    case duck

    init?(code: Int32, shouldResume: Bool) {
        switch code {
        case DECK_FOCUS_CHANGE_GAIN.rawValue: self = .gain(shouldResume: shouldResume)
        case DECK_FOCUS_CHANGE_UNDUCK.rawValue: self = .unduck
        case DECK_FOCUS_CHANGE_LOSS.rawValue: self = .loss
        case DECK_FOCUS_CHANGE_LOSS_TRANSIENT.rawValue: self = .lossTransient
        case DECK_FOCUS_CHANGE_DUCK.rawValue: self = .duck
        default: return nil
        }
    }
}
