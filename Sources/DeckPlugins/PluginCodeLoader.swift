import CDeckPlugin
import DeckBase

/// Where plugin code starts running: given a bundle that passed every check, opens its library,
/// checks its entry and creates the instance bound to `host`. Replaceable, so a plugin can be
/// loaded into a separate host process instead of this one. Loop-thread-confined.
package protocol PluginCodeLoader {
    func load(_ plan: CodePlan, host: PluginHost, logger: Logger) throws(PluginLoadError.Reason) -> any PluginCode
    /// Starts what the loads of `plans` will need, side by side, before they come one by one;
    /// what no load picks up is ended by `discardPrepared`.
    func prepare(_ plans: [CodePlan], logger: Logger)
    func discardPrepared()
}

extension PluginCodeLoader {
    package func prepare(_ plans: [CodePlan], logger: Logger) {}
    package func discardPrepared() {}
}

/// A checked bundle's code, and what the policy grants it: all a loader needs before the
/// plugin's `PluginHost` exists.
package struct CodePlan: Equatable {
    package var library: String
    package var bundle: String
    package var manifest: PluginManifest
    package var entitlements: Set<Entitlement>
    package var permissions: Set<Permission>
    package var dataFolder: String?
    /// The settings object's text handed to the plugin (`host->settings`).
    package var settings = "{}"
    /// Whether the output renders as fast as it can (`is_freewheeling`).
    package var freewheeling = false
}

/// Loads plugin code into this process with `dlopen`.
package struct InProcessCodeLoader: PluginCodeLoader {
    package init() {}

    package func load(_ plan: CodePlan, host: PluginHost, logger: Logger) throws(PluginLoadError.Reason) -> any PluginCode {
        try InProcessCodeLoader.load(library: plan.library, bundle: plan.bundle, id: plan.manifest.id, host: host, logger: logger)
    }

    /// Opens the library, checks its entry and creates plugin `id` bound to `host` (also what a
    /// plugin host process does).
    package static func load(library path: String, bundle: String, id: String, host: PluginHost,
                             logger: Logger) throws(PluginLoadError.Reason) -> InProcessPluginCode {
        let library: PluginLibrary
        do { library = try PluginLibrary(path: path) } catch { throw error.reason }
        func refuse(_ reason: PluginLoadError.Reason) -> PluginLoadError.Reason {
            library.close()
            return reason
        }
        guard let symbol = library.symbol(PluginABI.entrySymbol) else { throw refuse(.missingEntrySymbol) }
        let entryFunction = unsafeBitCast(symbol, to: deck_plugin_entry_fn.self)
        guard let entry = entryFunction() else { throw refuse(.entryInvalid("returned NULL")) }
        let abi = entry.pointee.abi
        guard deck_abi_is_compatible(abi) else { throw refuse(.abiIncompatible(major: abi.major, minor: abi.minor)) }
        guard let entryInit = entry.pointee.`init`, let create = entry.pointee.create, entry.pointee.deinit != nil else {
            throw refuse(.entryInvalid("returned an entry without init, deinit or create"))
        }
        guard entryInit(bundle) else { throw refuse(.entryInitFailed) }
        func abandon(_ reason: PluginLoadError.Reason) -> PluginLoadError.Reason {
            host.phase.store(PluginHost.Phase.destroyed.rawValue, ordering: .releasing)
            entry.pointee.deinit?()
            return refuse(reason)
        }
        guard let plugin = create(host.raw, id) else { throw abandon(.createFailed) }
        if let problem = InProcessCodeLoader.problem(with: plugin, expectedID: id) { throw abandon(.pluginInvalid(problem)) }
        return InProcessPluginCode(library: library, entry: entry, plugin: plugin, id: id, logger: logger)
    }

    /// What is wrong with a plugin struct returned by `create`, or nil.
    private static func problem(with plugin: UnsafePointer<deck_plugin_t>, expectedID: String) -> String? {
        let p = plugin.pointee
        guard let desc = p.desc else { return "desc is NULL" }
        guard deck_abi_is_compatible(desc.pointee.abi) else {
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
}
