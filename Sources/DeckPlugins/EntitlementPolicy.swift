import DeckBase

/// The integrator's grants (`policy.json`): a plugin's effective entitlements are those it
/// declares that the policy grants it.
///
///     {"default": ["audio"], "plugins": {"org.example.maps": ["maps", "audio"]}}
///
/// A plugin listed under "plugins" gets exactly its list; others get "default". With no policy
/// file every declared entitlement is granted (a development set-up, logged as such). The same
/// file says where each plugin runs (`"isolation"`, see `IsolationPolicy`) and which sandbox
/// permissions it gets (`"permissions"`, the same shape; none unless granted once a policy exists).
public struct EntitlementPolicy: Sendable, Equatable {
    /// nil: grant whatever is declared.
    public var defaultGrants: Set<Entitlement>?
    public var pluginGrants: [String: Set<Entitlement>]
    public var isolation = IsolationPolicy()
    /// nil: grant whatever permission is declared.
    public var defaultPermissions: Set<Permission>? = nil
    public var pluginPermissions: [String: Set<Permission>] = [:]

    public static let grantAll = EntitlementPolicy(defaultGrants: nil, pluginGrants: [:])

    /// The plugin ids the policy names, in any of its sections, sorted.
    public var namedPluginIDs: [String] {
        Set(pluginGrants.keys).union(pluginPermissions.keys).union(isolation.pluginModes.keys).sorted()
    }

    public init(defaultGrants: Set<Entitlement>?, pluginGrants: [String: Set<Entitlement>], isolation: IsolationPolicy = IsolationPolicy()) {
        self.defaultGrants = defaultGrants
        self.pluginGrants = pluginGrants
        self.isolation = isolation
    }

    public init(json: JSONValue) throws(PolicyError) {
        guard case .object(let members) = json else { throw .invalid("the policy must be a JSON object, got \(json.typeName)") }
        for key in members.keys where !["default", "plugins", "isolation", "permissions"].contains(key) {
            throw .invalid("unknown key \"\(key)\" (expected \"default\", \"plugins\", \"isolation\" and \"permissions\")")
        }
        defaultPermissions = []
        if let value = members["permissions"] {
            guard case .object(let parts) = value else { throw .invalid("\"permissions\" must be an object with \"default\" and \"plugins\"") }
            for key in parts.keys where !["default", "plugins"].contains(key) {
                throw .invalid("unknown key \"permissions.\(key)\" (expected \"default\" and \"plugins\")")
            }
            defaultPermissions = try parts["default"].map { value throws(PolicyError) in
                try EntitlementPolicy.names(value, at: "permissions.default", as: Permission.self)
            } ?? []
            if let plugins = parts["plugins"] {
                guard case .object(let entries) = plugins else {
                    throw .invalid("\"permissions.plugins\" must be an object of plugin id to permission list")
                }
                for (id, list) in entries {
                    pluginPermissions[try EntitlementPolicy.pluginID(id, in: "permissions.plugins")] =
                        try EntitlementPolicy.names(list, at: "permissions.plugins.\(id)", as: Permission.self)
                }
            }
        }
        if let value = members["isolation"] { isolation = try IsolationPolicy(json: value) }
        defaultGrants = try members["default"].map { value throws(PolicyError) in try EntitlementPolicy.names(value, at: "default", as: Entitlement.self) } ?? []
        pluginGrants = [:]
        if let plugins = members["plugins"] {
            guard case .object(let entries) = plugins else { throw .invalid("\"plugins\" must be an object of plugin id to entitlement list") }
            for (id, value) in entries {
                pluginGrants[try EntitlementPolicy.pluginID(id, in: "plugins")] = try EntitlementPolicy.names(value, at: "plugins.\(id)", as: Entitlement.self)
            }
        }
    }

    /// `id`, a key of the object at `path`, when a plugin can have it (manifests hold reverse-DNS
    /// ids); a key no plugin can have would never apply, whatever was meant.
    static func pluginID(_ id: String, in path: String) throws(PolicyError) -> String {
        guard PluginManifest.isReverseDNS(id) else {
            throw .invalid("\"\(path)\" names \(PrintableText.excerpt(JSONValue.string(id).encoded())), which is not a plugin id (reverse-DNS, e.g. \"org.deck.radio\")")
        }
        return id
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

    /// Declared ∩ granted permissions, and the declared ones that were not granted.
    public func effectivePermissions(for manifest: PluginManifest) -> (granted: Set<Permission>, denied: Set<Permission>) {
        guard let grants = pluginPermissions[manifest.id] ?? defaultPermissions else { return (manifest.permissions, []) }
        return (manifest.permissions.intersection(grants), manifest.permissions.subtracting(grants))
    }

    private static func names<Name: RawRepresentable<String> & Hashable>(_ value: JSONValue, at path: String,
                                                                         as: Name.Type) throws(PolicyError) -> Set<Name> {
        let kind = Name.self == Permission.self ? "permission" : "entitlement"
        guard case .array(let list) = value else { throw .invalid("\"\(path)\" must be an array of \(kind) names") }
        var result = Set<Name>()
        for element in list {
            guard let text = element.stringValue, let name = Name(rawValue: text) else {
                throw .invalid("\"\(path)\" lists \(PrintableText.excerpt(element.encoded())), which is not a known \(kind)")
            }
            result.insert(name)
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
