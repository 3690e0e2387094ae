/// Why one bundle did not load; the runtime logs it and carries on with the others.
public struct PluginLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        case notADirectory(String)
        case insecure(path: String, problem: String)
        case manifest(ManifestError)
        case abiMajorMismatch(declared: Int)
        /// The library is built for another ABI major, or a newer minor, than the runtime implements.
        case abiIncompatible(major: UInt32, minor: UInt32)
        case libraryUnusable(String)
        case libraryEscapesBundle(resolved: String)
        case duplicateID(String, firstBundle: String)
        case dlopenFailed(String)
        case missingEntrySymbol
        case entryInvalid(String)
        case entryInitFailed
        case createFailed
        case pluginInvalid(String)
        case pluginInitFailed(status: DeckStatus, message: String)
        /// Its host process could not be started, or ended while loading the plugin.
        case isolationFailed(String)
    }

    public var bundle: String
    public var reason: Reason

    public init(bundle: String, reason: Reason) {
        self.bundle = bundle
        self.reason = reason
    }

    public var description: String { "\(bundle): \(reasonText)" }

    public var reasonText: String {
        let runtimeABI = "\(PluginABI.major).\(PluginABI.minor)"
        switch reason {
        case .notADirectory(let problem): return problem
        case .insecure(let path, let problem):
            return "refusing \(path): \(problem) (fix the permissions, or pass --insecure-plugins while developing)"
        case .manifest(let error): return error.description
        case .abiMajorMismatch(let declared):
            return "manifest declares ABI \(declared), but this runtime implements ABI \(PluginABI.major); rebuild the plugin against this SDK"
        case .abiIncompatible(let major, let minor):
            if major != PluginABI.major {
                return "library is built for ABI \(major).\(minor), but this runtime implements ABI \(runtimeABI); rebuild the plugin against this SDK"
            }
            return "library is built for ABI \(major).\(minor), newer than this runtime's ABI \(runtimeABI); update the runtime or build against an older SDK"
        case .libraryUnusable(let problem): return problem
        case .libraryEscapesBundle(let resolved): return "library resolves to \(resolved), outside the bundle"
        case .duplicateID(let id, let first): return "plugin id \(id) is already loaded from \(first); the first one wins"
        case .dlopenFailed(let message): return "dlopen failed: \(message)"
        case .missingEntrySymbol: return "library does not export \(PluginABI.entrySymbol)()"
        case .entryInvalid(let problem): return "\(PluginABI.entrySymbol)() \(problem)"
        case .entryInitFailed: return "entry init() returned false; the plugin refused to load"
        case .createFailed: return "entry create() returned NULL"
        case .pluginInvalid(let problem): return "plugin struct is invalid: \(problem)"
        case .pluginInitFailed(let status, let message):
            return "plugin init() failed with \(status)" + (message.isEmpty ? "" : ": \(message)")
        case .isolationFailed(let problem): return "plugin host process: \(problem)"
        }
    }
}

extension PluginLoadError.Reason: Error {}
