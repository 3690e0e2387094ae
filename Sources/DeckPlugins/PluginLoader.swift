import CDeckPlugin
import DeckBase
import Glibc

/// Finds bundles, checks them, and turns each into an initialised `PluginInstance` or a precise
/// `PluginLoadError`. Everything that can be checked is checked before any plugin code runs; the
/// code itself is loaded by a `PluginCodeLoader`.
/// Loop-thread-confined.
package struct PluginLoader {
    var policy: EntitlementPolicy
    var allowInsecure: Bool
    var logger: Logger
    var loopThread: ThreadIdentity
    var callbacks: CallbackRequests
    var actions: HostActions
    /// Runs the code of a bundle that passed the checks.
    var codeLoader: any PluginCodeLoader
    /// Data folders, media folders and settings given to each plugin.
    var provisions: PluginProvisions

    package init(policy: EntitlementPolicy, allowInsecure: Bool, logger: Logger, loopThread: ThreadIdentity,
                 callbacks: CallbackRequests, actions: HostActions, codeLoader: any PluginCodeLoader = InProcessCodeLoader(),
                 provisions: PluginProvisions = PluginProvisions()) {
        self.provisions = provisions
        self.policy = policy
        self.allowInsecure = allowInsecure
        self.logger = logger
        self.loopThread = loopThread
        self.callbacks = callbacks
        self.actions = actions
        self.codeLoader = codeLoader
    }

    static let bundleSuffix = ".deckplugin"

    /// The `*.deckplugin` folders directly inside `directory`, sorted by name for a stable load order.
    package static func bundles(in directory: String) throws(PluginLoadError) -> [String] {
        guard let entries = FolderEntries.names(in: directory) else {
            throw PluginLoadError(bundle: directory, reason: .notADirectory("cannot read plugin directory: \(String(cString: strerror(errno)))"))
        }
        let names = entries.filter { $0.hasSuffix(bundleSuffix) && $0 != bundleSuffix }
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        return names.sorted().map { "\(base)/\($0)" }
    }

    /// A bundle that passed every check made before its code runs, with what the policy grants it.
    package struct CheckedBundle {
        package var manifest: PluginManifest
        package var plan: CodePlan
        var deniedEntitlements: Set<Entitlement>
        var deniedPermissions: Set<Permission>
        var dataFolderProblem: DataFolderError?
    }

    /// Checks the bundle at `bundlePath` (ownership, manifest, ABI, library, a duplicate id named by
    /// `loadedBundle`) and makes its data folder; no plugin code runs.
    package func check(bundle bundlePath: String, loadedBundle: (String) -> String?) throws(PluginLoadError) -> CheckedBundle {
        func refuse(_ reason: PluginLoadError.Reason) -> PluginLoadError { PluginLoadError(bundle: bundlePath, reason: reason) }

        guard let realBundle = AbsolutePath.real(bundlePath) else {
            // Listed, yet not found by its name: the name's bytes were not UTF-8, and U+FFFD took their place.
            if errno == ENOENT && bundlePath.contains("\u{FFFD}") {
                throw refuse(.notADirectory("its name is not UTF-8 text (\u{FFFD} marks the bytes), so it cannot be opened by it; rename the folder"))
            }
            throw refuse(.notADirectory("no bundle there: \(String(cString: strerror(errno)))"))
        }
        guard PluginLoader.isDirectory(realBundle) else {
            throw refuse(.notADirectory("not a bundle directory (a bundle is NAME.deckplugin/ holding manifest.json and the library)"))
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
        guard let realLibrary = AbsolutePath.real(libraryPath) else {
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

        let entitlements = policy.effective(for: manifest)
        let permissions = policy.effectivePermissions(for: manifest)
        var dataFolder: String?, dataFolderProblem: DataFolderError?
        if let dataRoot = provisions.dataRoot {
            do throws(DataFolderError) {
                dataFolder = try DataFolder.make(root: dataRoot, id: manifest.id)
            } catch {
                dataFolderProblem = error
            }
        }
        let plan = CodePlan(library: realLibrary, bundle: realBundle, manifest: manifest, entitlements: entitlements.granted,
                            permissions: permissions.granted, dataFolder: dataFolder,
                            settings: provisions.settingsText(for: manifest.id, permissions: permissions.granted), freewheeling: provisions.freewheeling)
        return CheckedBundle(manifest: manifest, plan: plan, deniedEntitlements: entitlements.denied,
                             deniedPermissions: permissions.denied, dataFolderProblem: dataFolderProblem)
    }

    /// Starts, ahead of their loads and side by side, what the bundles' code will need (host
    /// processes); a bundle that fails a check is left for `load` to report.
    package func prepare(bundles: [String], loadedBundle: (String) -> String?) {
        let plans = bundles.compactMap { bundle in try? check(bundle: bundle, loadedBundle: loadedBundle).plan }
        codeLoader.prepare(plans, logger: logger)
    }

    /// Loads and initialises the bundle at `bundlePath` as instance number `instance`.
    /// `loadedBundle(id)` names the bundle that already provides an id, for duplicate refusal.
    package func load(bundle bundlePath: String, instance: Int,
              loadedBundle: (String) -> String?) throws(PluginLoadError) -> PluginInstance {
        func refuse(_ reason: PluginLoadError.Reason) -> PluginLoadError { PluginLoadError(bundle: bundlePath, reason: reason) }
        let checked = try check(bundle: bundlePath, loadedBundle: loadedBundle)
        let manifest = checked.manifest, plan = checked.plan
        if !checked.deniedEntitlements.isEmpty {
            logger.warning("plugins", plugin: manifest.id, "\(manifest.id): entitlements not granted by policy, loading without them: \(Entitlement.list(checked.deniedEntitlements))")
        }
        if !checked.deniedPermissions.isEmpty {
            logger.warning("plugins", plugin: manifest.id, "\(manifest.id): permissions not granted by policy, its sandbox keeps it from: \(Permission.list(checked.deniedPermissions))")
        }
        if let problem = checked.dataFolderProblem { logger.warning("plugins", plugin: manifest.id, "\(manifest.id) runs without a data folder: \(problem)") }

        // Plugin code runs from here on.
        let host = PluginHost(pluginID: manifest.id, instance: instance, entitlements: plan.entitlements, permissions: plan.permissions,
                              dataFolder: plan.dataFolder, settings: plan.settings, freewheeling: plan.freewheeling, logger: logger, loopThread: loopThread, callbacks: callbacks, actions: actions)
        let code: any PluginCode
        do throws(PluginLoadError.Reason) {
            code = try codeLoader.load(plan, host: host, logger: logger)
        } catch {
            throw refuse(error)
        }
        let loaded = PluginInstance(manifest: manifest, bundlePath: bundlePath, host: host, code: code)
        do {
            try loaded.initialize()
        } catch {
            loaded.destroy()
            throw refuse(.pluginInitFailed(status: error.status, message: error.message))
        }
        return loaded
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
