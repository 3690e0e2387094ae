import DeckBase

/// The integrator's grants (`policy.json`): a plugin's effective entitlements are those it
/// declares that the policy grants it.
///
///     {"default": ["audio"], "plugins": {"org.example.maps": ["maps", "audio"]}}
///
/// A plugin listed under "plugins" gets exactly its list; others get "default". With no policy
/// file every declared entitlement is granted (a development set-up, logged as such). The same
/// file says where each plugin runs (`"isolation"`, see `IsolationPolicy`).
public struct EntitlementPolicy: Sendable, Equatable {
    /// nil: grant whatever is declared.
    public var defaultGrants: Set<Entitlement>?
    public var pluginGrants: [String: Set<Entitlement>]
    public var isolation = IsolationPolicy()

    public static let grantAll = EntitlementPolicy(defaultGrants: nil, pluginGrants: [:])

    public init(defaultGrants: Set<Entitlement>?, pluginGrants: [String: Set<Entitlement>], isolation: IsolationPolicy = IsolationPolicy()) {
        self.defaultGrants = defaultGrants
        self.pluginGrants = pluginGrants
        self.isolation = isolation
    }

    public init(json: JSONValue) throws(PolicyError) {
        guard case .object(let members) = json else { throw .invalid("the policy must be a JSON object, got \(json.typeName)") }
        for key in members.keys where !["default", "plugins", "isolation"].contains(key) {
            throw .invalid("unknown key \"\(key)\" (expected \"default\", \"plugins\" and \"isolation\")")
        }
        if let value = members["isolation"] { isolation = try IsolationPolicy(json: value) }
        defaultGrants = try members["default"].map { value throws(PolicyError) in try EntitlementPolicy.grants(value, at: "default") } ?? []
        pluginGrants = [:]
        if let plugins = members["plugins"] {
            guard case .object(let entries) = plugins else { throw .invalid("\"plugins\" must be an object of plugin id to entitlement list") }
            for (id, value) in entries { pluginGrants[id] = try EntitlementPolicy.grants(value, at: "plugins.\(id)") }
        }
    }

    /// What the policy lets plugin `id` have.
    public func granted(to id: String) -> Set<Entitlement>? {
        pluginGrants[id] ?? defaultGrants
    }

    /// Declared ∩ granted, and the declared entitlements that were not granted.
    public func effective(for manifest: PluginManifest) -> (granted: Set<Entitlement>, denied: Set<Entitlement>) {
        guard let grants = granted(to: manifest.id) else { return (manifest.entitlements, []) }
        return (manifest.entitlements.intersection(grants), manifest.entitlements.subtracting(grants))
    }

    private static func grants(_ value: JSONValue, at path: String) throws(PolicyError) -> Set<Entitlement> {
        guard case .array(let list) = value else { throw .invalid("\"\(path)\" must be an array of entitlement names") }
        var result = Set<Entitlement>()
        for element in list {
            guard let name = element.stringValue, let entitlement = Entitlement(rawValue: name) else {
                throw .invalid("\"\(path)\" lists \(element.encoded()), which is not a known entitlement")
            }
            result.insert(entitlement)
        }
        return result
    }
}

public enum PolicyError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self { case .invalid(let message): "policy: \(message)" }
    }
}
