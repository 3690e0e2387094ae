import DeckBase

/// The templates a plugin may describe, and which categories of app may use each (DESIGN.md's
/// table, from CarPlay's entitlements).
public enum TemplateKind: String, Sendable, CaseIterable {
    case tabBar, list, grid, information, alert, actionSheet, nowPlaying, pointOfInterest, map, search, contact, voiceControl

    /// "a list", "an alert": for messages.
    public var withArticle: String { ["a", "e", "i", "o", "u"].contains(rawValue.prefix(1)) ? "an \(rawValue)" : "a \(rawValue)" }

    /// Alerts and action sheets are presented over the stack, never pushed.
    public var isModal: Bool { self == .alert || self == .actionSheet }

    /// A navigation template starts a new task (the quota begins again).
    public var startsTask: Bool { self == .map }

    /// The entitlements any of which allows this template.
    public var entitlementsAllowing: [Entitlement] {
        switch self {
        case .tabBar, .list, .grid, .alert, .actionSheet:
            [.audio, .communication, .maps, .charging, .parking, .quickOrdering, .fueling, .drivingTask]
        case .nowPlaying: [.audio, .communication]
        case .information: [.communication, .maps, .charging, .parking, .quickOrdering, .fueling, .drivingTask]
        case .contact: [.communication, .maps]
        case .map, .search, .voiceControl: [.maps]
        case .pointOfInterest: [.charging, .parking, .quickOrdering, .fueling, .drivingTask]
        }
    }

    /// Refused with the entitlement it needs when `entitlements` do not allow it.
    func check(_ entitlements: Set<Entitlement>) throws(UIError) {
        let allowing = entitlementsAllowing
        guard !entitlements.isDisjoint(with: allowing) else {
            let names = allowing.map(\.rawValue)
            let need = names.count == 1 ? "the \(names[0]) entitlement" : "one of the \(names.joined(separator: ", ")) entitlements"
            throw .notEntitled("\(withArticle) template needs \(need) (the plugin has: \(Entitlement.list(entitlements)))")
        }
    }
}
