/// How long a focus request wants the output (`deck_focus_type_t`).
public enum FocusType: Int32, Sendable {
    case gain = 1, gainTransient = 2, gainTransientMayDuck = 3, gainTransientExclusive = 4
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
        case 1: self = .gain(shouldResume: shouldResume)
        case 2: self = .unduck
        case -1: self = .loss
        case -2: self = .lossTransient
        case -3: self = .duck
        default: return nil
        }
    }
}
