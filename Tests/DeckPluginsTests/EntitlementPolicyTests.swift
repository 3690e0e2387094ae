import DeckBase
import Testing
@testable import DeckPlugins
import DeckTestSupport

@Suite struct EntitlementPolicyTests {
    func manifest(_ id: String, _ entitlements: Set<Entitlement>) throws -> PluginManifest {
        try PluginManifest(json: ["id": .string(id), "name": "X", "version": "1.0.0", "abi": 1, "library": "libx.so",
                                  "entitlements": .array(entitlements.map { .string($0.rawValue) })])
    }

    @Test func effectiveEntitlementsAreDeclaredIntersectGranted() throws {
        let policy = try EntitlementPolicy(json: ["default": ["audio"], "plugins": ["org.example.maps": ["maps", "audio"]]])
        let maps = policy.effective(for: try manifest("org.example.maps", [.maps, .charging]))
        #expect(maps.granted == [.maps])
        #expect(maps.denied == [.charging])
        let other = policy.effective(for: try manifest("org.example.radio", [.audio, .communication]))
        #expect(other.granted == [.audio])
        #expect(other.denied == [.communication])
    }

    @Test func permissionsAreDeclaredIntersectGrantedAndNoneOnceAPolicyExists() throws {
        let radio = try PluginManifest(json: ["id": "org.example.radio", "name": "X", "version": "1.0.0", "abi": 1, "library": "libx.so",
                                              "entitlements": ["audio"], "permissions": ["network", "media"]])
        #expect(EntitlementPolicy.grantAll.effectivePermissions(for: radio).granted == [.network, .media])
        let policy = try EntitlementPolicy(json: ["default": ["audio"], "permissions": ["default": ["network"], "plugins": ["org.example.lib": ["media"]]]])
        #expect(policy.effectivePermissions(for: radio).granted == [.network])
        #expect(policy.effectivePermissions(for: radio).denied == [.media])
        let silent = try EntitlementPolicy(json: ["default": ["audio"]])
        #expect(silent.effectivePermissions(for: radio).granted.isEmpty)
        #expect(throws: PolicyError.invalid("\"permissions.default\" lists \"camera\", which is not a known permission")) {
            try EntitlementPolicy(json: ["permissions": ["default": ["camera"]]])
        }
    }

    @Test(arguments: [(JSONValue.array(["camera"]), ManifestError.unknownPermission("camera")),
                      (JSONValue.array(["network", "network"]), ManifestError.duplicatePermission("network")),
                      (JSONValue.string("network"), ManifestError.wrongType(key: "permissions", expected: "an array of strings", got: "a string"))])
    func malformedPermissionsAreRefusedNamingThem(permissions: JSONValue, error: ManifestError) {
        #expect(throws: error) {
            try PluginManifest(json: ["id": "org.example.radio", "name": "X", "version": "1.0.0", "abi": 1, "library": "libx.so",
                                      "entitlements": ["audio"], "permissions": permissions])
        }
    }

    @Test func withoutAPolicyEverythingDeclaredIsGranted() throws {
        let effective = EntitlementPolicy.grantAll.effective(for: try manifest("org.example.all", [.audio, .maps]))
        #expect(effective.granted == [.audio, .maps])
        #expect(effective.denied.isEmpty)
    }

    @Test func aPolicyWithoutDefaultGrantsNothingToUnlistedPlugins() throws {
        let policy = try EntitlementPolicy(json: ["plugins": ["org.example.a": ["audio"]]])
        #expect(policy.effective(for: try manifest("org.example.b", [.audio])).granted.isEmpty)
    }

    @Test func isolationIsProcessUnlessThePolicySaysOtherwise() throws {
        #expect(EntitlementPolicy.grantAll.isolation.mode(for: "org.example.any") == .process)
        #expect(try EntitlementPolicy(json: ["isolation": "inline"]).isolation.mode(for: "org.example.any") == .inline)
        let mixed = try EntitlementPolicy(json: ["isolation": ["plugins": ["com.carmaker.radio": "inline"]]]).isolation
        #expect(mixed.mode(for: "com.carmaker.radio") == .inline)
        #expect(mixed.mode(for: "org.example.thirdparty") == .process)
    }

    @Test(arguments: [
        (JSONValue.array([]), "policy: the policy must be a JSON object, got an array"),
        (JSONValue.object(["default": "audio"]), "policy: \"default\" must be an array of entitlement names"),
        (JSONValue.object(["default": ["radio"]]), "policy: \"default\" lists \"radio\", which is not a known entitlement"),
        (JSONValue.object(["grants": []]), "policy: unknown key \"grants\" (expected \"default\", \"plugins\", \"isolation\" and \"permissions\")"),
        (JSONValue.object(["plugins": ["org.x.y": [1]]]), "policy: \"plugins.org.x.y\" lists 1, which is not a known entitlement"),
        (JSONValue.object(["isolation": "sandbox"]), "policy: \"isolation\" must be \"process\" or \"inline\", got \"sandbox\""),
        (JSONValue.object(["isolation": ["plugins": ["org.x.y": true]]]),
         "policy: \"isolation.plugins.org.x.y\" must be \"process\" or \"inline\", got true"),
        (JSONValue.object(["isolation": ["mode": "inline"]]), "policy: unknown key \"isolation.mode\" (expected \"default\" and \"plugins\")"),
        // A key no plugin's id can be would never apply: a space, a missing dot, nothing at all.
        (JSONValue.object(["plugins": ["": ["audio"]]]), "policy: \"plugins\" names \"\", which is not a plugin id (reverse-DNS, e.g. \"org.deck.radio\")"),
        (JSONValue.object(["permissions": ["plugins": ["org.x.y ": ["media"]]]]),
         "policy: \"permissions.plugins\" names \"org.x.y \", which is not a plugin id (reverse-DNS, e.g. \"org.deck.radio\")"),
        (JSONValue.object(["isolation": ["plugins": ["radio": "inline"]]]),
         "policy: \"isolation.plugins\" names \"radio\", which is not a plugin id (reverse-DNS, e.g. \"org.deck.radio\")"),
    ] as [(JSONValue, String)])
    func malformedPoliciesAreRefusedWithTheKey(json: JSONValue, message: String) {
        #expect(throws: PolicyError.invalid(String(message.dropFirst("policy: ".count)))) {
            try EntitlementPolicy(json: json)
        }
    }
}
