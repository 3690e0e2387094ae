/// A category of in-car app, as CarPlay defines them; it decides which templates and audio
/// contexts a plugin may use.
public enum Entitlement: String, Sendable, CaseIterable, Comparable {
    case audio
    case communication
    case maps
    case charging
    case parking
    case quickOrdering = "quick-ordering"
    case fueling
    case drivingTask = "driving-task"

    public static func < (a: Entitlement, b: Entitlement) -> Bool { a.rawValue < b.rawValue }

    /// "audio, maps" — sorted, for logs and messages.
    package static func list(_ set: Set<Entitlement>) -> String {
        set.isEmpty ? "none" : set.sorted().map(\.rawValue).joined(separator: ", ")
    }
}
