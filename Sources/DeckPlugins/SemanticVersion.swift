/// A Semantic Versioning 2.0.0 version: `MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]`.
public struct SemanticVersion: Sendable, Equatable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int
    public var prerelease: String?
    public var build: String?

    public init?(_ text: String) {
        var rest = Substring(text)
        if let plus = rest.firstIndex(of: "+") {
            build = String(rest[rest.index(after: plus)...])
            rest = rest[..<plus]
            guard SemanticVersion.validIdentifiers(build!, numeric: false) else { return nil }
        }
        if let dash = rest.firstIndex(of: "-") {
            prerelease = String(rest[rest.index(after: dash)...])
            rest = rest[..<dash]
            guard SemanticVersion.validIdentifiers(prerelease!, numeric: true) else { return nil }
        }
        let core = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard core.count == 3, core.allSatisfy(SemanticVersion.isNumber),
              let major = Int(core[0]), let minor = Int(core[1]), let patch = Int(core[2]) else { return nil }
        (self.major, self.minor, self.patch) = (major, minor, patch)
    }

    public var description: String {
        "\(major).\(minor).\(patch)" + (prerelease.map { "-\($0)" } ?? "") + (build.map { "+\($0)" } ?? "")
    }

    /// Digits only, and no leading zero unless the number is 0.
    private static func isNumber(_ part: Substring) -> Bool {
        !part.isEmpty && part.count <= 9 && part.allSatisfy { $0.isASCII && $0.isNumber } && (part == "0" || part.first != "0")
    }

    /// Dot-separated [0-9A-Za-z-] identifiers; prerelease numeric identifiers have no leading zero.
    private static func validIdentifiers(_ text: String, numeric: Bool) -> Bool {
        text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else { return false }
            let allDigits = part.allSatisfy(\.isNumber)
            return !(numeric && allDigits && part.count > 1 && part.first == "0")
        }
    }
}
