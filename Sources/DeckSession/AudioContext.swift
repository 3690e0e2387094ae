/// What a piece of audio is for; decides how it interacts with audio already playing.
/// The twelve contexts of Android Automotive's CarAudioContext.
public enum AudioContext: String, Sendable, CaseIterable, Comparable {
    case music, navigation, voiceCommand, callRing, call, alarm, notification, systemSound
    case emergency, safety, vehicleStatus, announcement

    public static func < (a: AudioContext, b: AudioContext) -> Bool { a.index < b.index }

    /// Hashed by its place, not its name: focus decisions hash contexts often.
    public func hash(into hasher: inout Hasher) { hasher.combine(index) }

    /// How many contexts there are.
    static let count = 12

    /// The context's place in `allCases`, without building that array (a matrix lookup takes two).
    var index: Int {
        switch self {
        case .music: 0
        case .navigation: 1
        case .voiceCommand: 2
        case .callRing: 3
        case .call: 4
        case .alarm: 5
        case .notification: 6
        case .systemSound: 7
        case .emergency: 8
        case .safety: 9
        case .vehicleStatus: 10
        case .announcement: 11
        }
    }
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
