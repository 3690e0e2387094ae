import DeckBase
import DeckSession

/// Which audio contexts each entitlement lets a plugin request (DESIGN's table). The session knows
/// contexts, not entitlements; this rule belongs to the plugins' side.
extension AudioContext {
    /// The contexts a plugin with these entitlements may request; the integrator may request any.
    package static func allowed(for entitlements: Set<Entitlement>) -> Set<AudioContext> {
        var contexts = Set<AudioContext>()
        for entitlement in entitlements {
            switch entitlement {
            case .audio: contexts.formUnion([.music, .announcement])
            case .communication: contexts.formUnion([.callRing, .call, .voiceCommand, .notification])
            case .maps: contexts.insert(.navigation)
            case .charging, .parking, .quickOrdering, .fueling, .drivingTask: contexts.insert(.notification)
            }
        }
        return contexts
    }

    /// The entitlements any one of which lets a plugin request this context (empty: integrator only).
    package var entitlementsAllowing: [Entitlement] {
        Entitlement.allCases.filter { AudioContext.allowed(for: [$0]).contains(self) }
    }
}
