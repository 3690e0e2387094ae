/// What a piece of audio is for; decides how it interacts with audio already playing.
/// The twelve contexts of Android Automotive's CarAudioContext.
public enum AudioContext: String, Sendable, CaseIterable, Comparable {
    case music, navigation, voiceCommand, callRing, call, alarm, notification, systemSound
    case emergency, safety, vehicleStatus, announcement

    public static func < (a: AudioContext, b: AudioContext) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    var index: Int { AudioContext.allCases.firstIndex(of: self)! }
}

/// How long a request wants the output, as Android's audio focus gains.
public enum FocusRequestType: String, Sendable, CaseIterable {
    /// Until abandoned: others lose focus for good.
    case gain
    /// For a while: others pause and resume after.
    case gainTransient
    /// For a while, and others may keep playing ducked (a navigation prompt).
    case gainTransientMayDuck
    /// For a while, alone (a voice recognizer listening).
    case gainTransientExclusive

    var isTransient: Bool { self != .gain }
    var allowsDucking: Bool { self == .gainTransientMayDuck }
}

/// What a focus holder's context does to a request's context: one cell of the matrix.
public enum FocusInteraction: String, Sendable {
    /// The request is refused (or delayed) while the holder holds focus.
    case reject
    /// The request is granted and the holder loses focus.
    case exclusive
    /// Both play; the holder is ducked when the request allows it, and loses focus otherwise.
    case concurrent
}
