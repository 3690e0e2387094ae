import DeckBase

/// A bundle's `manifest.json`, checked before any plugin code runs.
public struct PluginManifest: Sendable, Equatable {
    public var id: String
    public var name: String
    public var version: SemanticVersion
    public var abi: Int
    public var library: String
    public var entitlements: Set<Entitlement>
    /// What its sandbox must let it reach (optional `"permissions"`; none when absent).
    public var permissions: Set<Permission> = []
    public var vendor: String?
    public var description: String?

    /// The manifest's size limit: it is a few lines of JSON, never megabytes.
    public static let maxBytes = 64 * 1024
    /// Strings a driver may see are capped like template strings.
    static let maxNameLength = 120

    public init(json: JSONValue) throws(ManifestError) {
        guard case .object(let members) = json else { throw .notAnObject(json.typeName) }
        func string(_ key: String) throws(ManifestError) -> String {
            guard let value = members[key] else { throw .missingKey(key) }
            guard case .string(let text) = value else { throw .wrongType(key: key, expected: "a string", got: value.typeName) }
            return text
        }
        func optionalString(_ key: String) throws(ManifestError) -> String? {
            guard let value = members[key], value != .null else { return nil }
            guard case .string(let text) = value else { throw .wrongType(key: key, expected: "a string", got: value.typeName) }
            return text
        }

        id = try string("id")
        guard PluginManifest.isReverseDNS(id) else { throw .invalidID(id) }
        name = try string("name")
        guard !name.isEmpty, name.count <= PluginManifest.maxNameLength else { throw .invalidName(name) }
        let versionText = try string("version")
        guard let version = SemanticVersion(versionText) else { throw .invalidVersion(versionText) }
        self.version = version

        guard let abiValue = members["abi"] else { throw .missingKey("abi") }
        guard case .int(let abi) = abiValue else { throw .wrongType(key: "abi", expected: "an integer", got: abiValue.typeName) }
        guard abi >= 1, abi <= Int64(Int32.max) else { throw .invalidABI(abi) }
        self.abi = Int(abi)

        library = try string("library")
        if let reason = PluginManifest.libraryNameProblem(library) { throw .invalidLibrary(library, reason: reason) }

        guard let entitlementsValue = members["entitlements"] else { throw .missingKey("entitlements") }
        guard case .array(let list) = entitlementsValue else {
            throw .wrongType(key: "entitlements", expected: "an array of strings", got: entitlementsValue.typeName)
        }
        var entitlements = Set<Entitlement>()
        for element in list {
            guard case .string(let text) = element else {
                throw .wrongType(key: "entitlements", expected: "an array of strings", got: "an element that is \(element.typeName)")
            }
            guard let entitlement = Entitlement(rawValue: text) else { throw .unknownEntitlement(text) }
            guard entitlements.insert(entitlement).inserted else { throw .duplicateEntitlement(text) }
        }
        self.entitlements = entitlements
        if let value = members["permissions"] {
            guard case .array(let list) = value else {
                throw .wrongType(key: "permissions", expected: "an array of strings", got: value.typeName)
            }
            for element in list {
                guard case .string(let text) = element else {
                    throw .wrongType(key: "permissions", expected: "an array of strings", got: "an element that is \(element.typeName)")
                }
                guard let permission = Permission(rawValue: text) else { throw .unknownPermission(text) }
                guard permissions.insert(permission).inserted else { throw .duplicatePermission(text) }
            }
        }
        vendor = try optionalString("vendor")
        description = try optionalString("description")
    }

    /// At least two dot-separated labels of ASCII letters, digits and hyphens, e.g. `org.example.radio`.
    package static func isReverseDNS(_ id: String) -> Bool {
        let labels = id.split(separator: ".", omittingEmptySubsequences: false)
        guard id.utf8.count <= 255, labels.count >= 2 else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        } && labels[0].first!.isLetter
    }

    /// Why `name` is not a plain file name inside the bundle, or nil when it is.
    static func libraryNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.hasPrefix("/") { return "it is an absolute path" }
        if name.contains("/") { return "it contains a '/'; it must name a file directly inside the bundle" }
        if name == "." || name == ".." { return "it names a directory" }
        if name.utf8.contains(0) { return "it contains a NUL byte" }
        if name.utf8.count > 255 { return "it has \(name.utf8.count) bytes; a file name has at most 255 (NAME_MAX)" }
        return nil
    }
}

/// Why a manifest was refused; each message names the key and what to write instead.
public enum ManifestError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(String)
    case malformedJSON(JSONParseError)
    case notAnObject(String)
    case missingKey(String)
    case wrongType(key: String, expected: String, got: String)
    case invalidID(String)
    case invalidName(String)
    case invalidVersion(String)
    case invalidABI(Int64)
    case unknownEntitlement(String)
    case duplicateEntitlement(String)
    case unknownPermission(String)
    case duplicatePermission(String)
    case invalidLibrary(String, reason: String)

    /// Quotes what the bundle says by its start: the reason is shown to every client (`apps.list`).
    public var description: String {
        switch self {
        case .unreadable(let reason): "cannot read manifest.json: \(reason)"
        case .malformedJSON(let error): "manifest.json is not valid JSON: \(error)"
        case .notAnObject(let got): "manifest.json must be a JSON object, got \(got)"
        case .missingKey(let key): "manifest.json is missing the required key \"\(key)\""
        case .wrongType(let key, let expected, let got): "manifest key \"\(key)\" must be \(expected), got \(got)"
        case .invalidID(let id):
            "manifest id \"\(PrintableText.excerpt(id))\" is not reverse-DNS (two or more dot-separated labels of letters, digits and '-', e.g. \"org.example.radio\")"
        case .invalidName(let name): "manifest name \"\(PrintableText.excerpt(name))\" must be 1 to \(PluginManifest.maxNameLength) characters"
        case .invalidVersion(let version): "manifest version \"\(PrintableText.excerpt(version))\" is not a semantic version (MAJOR.MINOR.PATCH, e.g. \"1.2.0\")"
        case .invalidABI(let abi): "manifest abi \(abi) is not a valid ABI major version (an integer from 1)"
        case .unknownEntitlement(let name):
            "unknown entitlement \"\(PrintableText.excerpt(name))\"; known: \(Entitlement.allCases.map(\.rawValue).joined(separator: ", "))"
        case .duplicateEntitlement(let name): "entitlement \"\(PrintableText.excerpt(name))\" is listed twice"
        case .unknownPermission(let name):
            "unknown permission \"\(PrintableText.excerpt(name))\"; known: \(Permission.allCases.map(\.rawValue).joined(separator: ", "))"
        case .duplicatePermission(let name): "permission \"\(PrintableText.excerpt(name))\" is listed twice"
        case .invalidLibrary(let library, let reason): "manifest library \"\(PrintableText.excerpt(library))\" is refused: \(reason)"
        }
    }
}
