import CDeckPlugin
import DeckBase
import Glibc

/// Finds bundles, checks them, and turns each into an initialised `PluginInstance` or a precise
/// `PluginLoadError`. Everything that can be checked is checked before the library is opened.
/// Loop-thread-confined.
package struct PluginLoader {
    var policy: EntitlementPolicy
    var allowInsecure: Bool
    var logger: Logger
    var loopThread: ThreadIdentity
    var callbacks: CallbackRequests
    var actions: HostActions

    package init(policy: EntitlementPolicy, allowInsecure: Bool, logger: Logger, loopThread: ThreadIdentity,
                 callbacks: CallbackRequests, actions: HostActions) {
        self.policy = policy
        self.allowInsecure = allowInsecure
        self.logger = logger
        self.loopThread = loopThread
        self.callbacks = callbacks
        self.actions = actions
    }

    static let bundleSuffix = ".deckplugin"

    /// The `*.deckplugin` folders directly inside `directory`, sorted by name for a stable load order.
    package static func bundles(in directory: String) throws(PluginLoadError) -> [String] {
        guard let dir = opendir(directory) else {
            throw PluginLoadError(bundle: directory, reason: .notADirectory("cannot read plugin directory: \(String(cString: strerror(errno)))"))
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(bundleSuffix) && name != bundleSuffix { names.append(name) }
        }
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        return names.sorted().map { "\(base)/\($0)" }
    }

    /// Loads and initialises the bundle at `bundlePath` as instance number `instance`.
    /// `loadedBundle(id)` names the bundle that already provides an id, for duplicate refusal.
    package func load(bundle bundlePath: String, instance: Int,
              loadedBundle: (String) -> String?) throws(PluginLoadError) -> PluginInstance {
        func refuse(_ reason: PluginLoadError.Reason) -> PluginLoadError { PluginLoadError(bundle: bundlePath, reason: reason) }

        guard let realBundle = PluginLoader.realPath(bundlePath), PluginLoader.isDirectory(realBundle) else {
            throw refuse(.notADirectory("not a bundle directory"))
        }
        if !allowInsecure {
            if let problem = PluginLoader.ownershipProblem(realBundle) { throw refuse(.insecure(path: bundlePath, problem: problem)) }
            if let (folder, problem) = PluginLoader.ancestryProblem(realBundle) { throw refuse(.insecure(path: folder, problem: problem)) }
            let manifestPath = "\(realBundle)/manifest.json"
            if PluginLoader.fileMode(manifestPath) != nil, let problem = PluginLoader.ownershipProblem(manifestPath) {
                throw refuse(.insecure(path: manifestPath, problem: problem))
            }
        }

        let manifest: PluginManifest
        do {
            let json = try JSONValue.parse(contentsOfFile: "\(bundlePath)/manifest.json",
                                           limits: JSONLimits(maxBytes: PluginManifest.maxBytes, maxDepth: 8))
            manifest = try PluginManifest(json: json)
        } catch let error as JSONFileError {
            switch error {
            case .unreadable(_, let reason): throw refuse(.manifest(.unreadable(reason)))
            case .malformed(_, let parseError): throw refuse(.manifest(.malformedJSON(parseError)))
            }
        } catch let error as ManifestError {
            throw refuse(.manifest(error))
        } catch {
            throw refuse(.manifest(.unreadable("\(error)")))
        }
        guard manifest.abi == Int(PluginABI.major) else { throw refuse(.abiMajorMismatch(declared: manifest.abi)) }

        let libraryPath = "\(realBundle)/\(manifest.library)"
        guard let realLibrary = PluginLoader.realPath(libraryPath) else {
            throw refuse(.libraryUnusable("library \(manifest.library) not found in the bundle: \(String(cString: strerror(errno)))"))
        }
        guard realLibrary.hasPrefix(realBundle + "/") else { throw refuse(.libraryEscapesBundle(resolved: realLibrary)) }
        guard PluginLoader.isRegularFile(realLibrary) else {
            throw refuse(.libraryUnusable("library \(manifest.library) is not a regular file"))
        }
        if !allowInsecure, let problem = PluginLoader.ownershipProblem(realLibrary) {
            throw refuse(.insecure(path: realLibrary, problem: problem))
        }
        if let first = loadedBundle(manifest.id) { throw refuse(.duplicateID(manifest.id, firstBundle: first)) }

        let (granted, denied) = policy.effective(for: manifest)
        if !denied.isEmpty {
            logger.warning("plugins", "\(manifest.id): entitlements not granted by policy, loading without them: \(Entitlement.list(denied))")
        }

        // Plugin code runs from here on.
        let library: PluginLibrary
        do { library = try PluginLibrary(path: realLibrary) } catch { throw refuse(error.reason) }
        guard let symbol = library.symbol(PluginABI.entrySymbol) else {
            library.close()
            throw refuse(.missingEntrySymbol)
        }
        let entryFunction = unsafeBitCast(symbol, to: deck_plugin_entry_fn.self)
        guard let entry = entryFunction() else {
            library.close()
            throw refuse(.entryInvalid("returned NULL"))
        }
        let abi = entry.pointee.abi
        guard abi.major == PluginABI.major, abi.minor <= PluginABI.minor else {
            library.close()
            throw refuse(.abiTooNew(major: abi.major, minor: abi.minor))
        }
        guard let entryInit = entry.pointee.`init`, let create = entry.pointee.create, entry.pointee.deinit != nil else {
            library.close()
            throw refuse(.entryInvalid("returned an entry without init, deinit or create"))
        }
        guard entryInit(realBundle) else {
            library.close()
            throw refuse(.entryInitFailed)
        }

        let host = PluginHost(pluginID: manifest.id, instance: instance, entitlements: granted, logger: logger,
                              loopThread: loopThread, callbacks: callbacks, actions: actions)
        func abandon(_ reason: PluginLoadError.Reason) -> PluginLoadError {
            host.phase.store(PluginHost.Phase.destroyed.rawValue, ordering: .releasing)
            entry.pointee.deinit?()
            library.close()
            return refuse(reason)
        }
        guard let plugin = create(host.raw, manifest.id) else { throw abandon(.createFailed) }
        if let problem = PluginLoader.problem(with: plugin, expectedID: manifest.id) {
            throw abandon(.pluginInvalid(problem))
        }
        let loaded = PluginInstance(manifest: manifest, bundlePath: bundlePath, host: host, library: library,
                                    entry: entry, plugin: plugin)
        do {
            try loaded.initialize()
        } catch {
            loaded.destroy()
            throw refuse(.pluginInitFailed(status: error.status, message: error.message))
        }
        return loaded
    }

    /// What is wrong with a plugin struct returned by `create`, or nil.
    private static func problem(with plugin: UnsafePointer<deck_plugin_t>, expectedID: String) -> String? {
        let p = plugin.pointee
        guard let desc = p.desc else { return "desc is NULL" }
        guard desc.pointee.abi.major == PluginABI.major, desc.pointee.abi.minor <= PluginABI.minor else {
            return "descriptor ABI \(desc.pointee.abi.major).\(desc.pointee.abi.minor) is not supported"
        }
        guard let id = desc.pointee.id else { return "descriptor id is NULL" }
        let descriptorID = String(cString: id)
        guard descriptorID == expectedID else { return "descriptor id \"\(descriptorID)\" differs from the manifest id \"\(expectedID)\"" }
        var missing: [String] = []
        if p.`init` == nil { missing.append("init") }
        if p.activate == nil { missing.append("activate") }
        if p.deactivate == nil { missing.append("deactivate") }
        if p.destroy == nil { missing.append("destroy") }
        return missing.isEmpty ? nil : "missing \(missing.joined(separator: ", "))"
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The first folder above `path` that another user could use to swap the bundle: one owned by
    /// someone else, or writable by group or others without the sticky bit (/tmp has it).
    static func ancestryProblem(_ path: String) -> (String, String)? {
        var folder = path
        while let slash = folder.lastIndex(of: "/"), folder != "/" {
            folder = slash == folder.startIndex ? "/" : String(folder[..<slash])
            if let problem = ownershipProblem(folder, stickyMayBeShared: true) { return (folder, problem) }
        }
        return nil
    }

    private static func fileMode(_ path: String) -> stat? {
        var info = stat()
        return stat(path, &info) == 0 ? info : nil
    }

    static func isDirectory(_ path: String) -> Bool { fileMode(path).map { ($0.st_mode & S_IFMT) == S_IFDIR } ?? false }
    static func isRegularFile(_ path: String) -> Bool { fileMode(path).map { ($0.st_mode & S_IFMT) == S_IFREG } ?? false }

    /// Refuses what another user could have swapped: group/other-writable, or owned by someone
    /// other than the runtime's user or root.
    /// `stickyMayBeShared` accepts a shared folder with the sticky bit (as /tmp), where others
    /// cannot rename what is ours.
    static func ownershipProblem(_ path: String, stickyMayBeShared: Bool = false) -> String? {
        guard let info = fileMode(path) else { return "cannot stat: \(String(cString: strerror(errno)))" }
        let sharedSticky = stickyMayBeShared && info.st_mode & S_ISVTX != 0
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 && !sharedSticky {
            return "it is writable by group or others (mode \(String(info.st_mode & 0o7777, radix: 8)))"
        }
        let user = geteuid()
        if info.st_uid != user && info.st_uid != 0 {
            return "it is owned by uid \(info.st_uid), not by the runtime's user (uid \(user)) or root"
        }
        return nil
    }
}
