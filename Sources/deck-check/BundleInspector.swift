import DeckBase
import DeckPlugins
import Glibc

/// The static checks: the bundle's files, its manifest and its library as ELF, before any of its
/// code runs.
struct BundleInspector {
    let bundle: String
    private(set) var findings: [Finding] = []
    /// The manifest, when it passed.
    private(set) var manifest: PluginManifest?

    init(bundle: String) {
        self.bundle = bundle.hasSuffix("/") ? String(bundle.dropLast()) : bundle
    }

    mutating func run() {
        let manifestPath = bundle + "/manifest.json"
        guard checkFiles() else { return }
        do {
            let json = try JSONValue.parse(contentsOfFile: manifestPath, limits: JSONLimits(maxBytes: PluginManifest.maxBytes, maxDepth: 8))
            manifest = try PluginManifest(json: json)
        } catch let error as JSONFileError {
            report("manifest.valid", "\(error)", at: manifestPath)
        } catch {
            report("manifest.valid", "\(error)", at: manifestPath)
        }
        guard let manifest else { return }
        if manifest.abi != Int(PluginABI.major) {
            report("manifest.abi", "it declares ABI \(manifest.abi); this runtime speaks ABI \(PluginABI.major)", at: manifestPath)
        }
        checkLibrary(manifest)
    }

    private mutating func report(_ id: String, _ reason: String, at location: String) {
        guard let rule = CheckRule.named(id) else { return }
        findings.append(Finding(rule: rule, reason: reason, location: location))
    }

    /// Group/other-writable files are refused by the runtime; files others cannot read cannot be
    /// loaded by a host process that runs as a uid of its own. False when there is no bundle folder
    /// to look in.
    private mutating func checkFiles() -> Bool {
        var info = stat()
        guard stat(bundle, &info) == 0 else {
            report("bundle.library", "no bundle here: \(String(cString: strerror(errno)))", at: bundle)
            return false
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            report("bundle.library", "the bundle is not a folder (a bundle is NAME.deckplugin/ holding manifest.json and the library)", at: bundle)
            return false
        }
        var unreadable: [String] = []
        /// Walked by descriptor and by the names as the folders hold them: a file named in bytes
        /// that are not UTF-8 is checked too (and shown with U+FFFD for them).
        func visit(_ path: String, in parent: Int32, named name: [CChar], depth: Int) {
            var info = stat()
            guard depth < 8, fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT != S_IFLNK else { return }
            if info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
                report("bundle.ownership", "writable by group or others (mode \(String(info.st_mode & 0o7777, radix: 8))): "
                       + "another user could change the code the runtime loads; chmod go-w", at: path)
            }
            let isFolder = info.st_mode & S_IFMT == S_IFDIR
            if info.st_mode & S_IROTH == 0 || (isFolder && info.st_mode & S_IXOTH == 0) { unreadable.append(path) }
            guard isFolder else { return }
            let folder = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folder >= 0 else { return }
            defer { close(folder) }
            for child in (FolderEntries.rawNames(inOpen: folder) ?? []).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                visit(path + "/" + FolderEntries.text(of: child), in: folder, named: child, depth: depth + 1)
            }
        }
        visit(bundle, in: AT_FDCWD, named: Array(bundle.utf8CString), depth: 0)
        if !unreadable.isEmpty {
            report("bundle.readable", "\(unreadable.count) file(s) or folder(s) others cannot read, e.g. \(unreadable[0]): "
                   + "a host process running as a uid of its own cannot load them; chmod -R o+rX", at: unreadable[0])
        }
        return true
    }

    private mutating func checkLibrary(_ manifest: PluginManifest) {
        let path = bundle + "/" + manifest.library
        guard let resolved = realpath(path, nil) else {
            report("bundle.library", "\(manifest.library) is not in the bundle: \(String(cString: strerror(errno)))", at: path)
            return
        }
        let real = String(cString: resolved)
        free(resolved)
        guard let realBundle = realpath(bundle, nil) else { return }
        defer { free(realBundle) }
        guard real.hasPrefix(String(cString: realBundle) + "/") else {
            report("bundle.library", "\(manifest.library) resolves to \(real), outside the bundle", at: path)
            return
        }
        let image: ELFImage
        do {
            image = try ELFImage(path: real)
        } catch {
            report("library.elf", error.description, at: path)
            return
        }
        if image.machine != ELFMachine.host.code || !image.isSharedObject {
            report("library.elf", "built for \(ELFMachine(code: image.machine))\(image.isSharedObject ? "" : ", not as a shared object"); "
                   + "this machine is \(ELFMachine.host)", at: path)
        }
        if PluginLibrary.isOnNoexecMount(real) {
            report("library.elf", "it is on a file system mounted noexec, where the runtime cannot map its code: install the bundle on "
                   + "one that allows it", at: path)
        }
        if !image.exports.contains(where: { $0.name == "deck_plugin_entry" }) {
            report("library.entry", "deck_plugin_entry is not exported: the runtime has nothing to call (declare it with DECK_EXPORT)", at: path)
        }
        let origin = String(real[..<(real.lastIndex(of: "/") ?? real.endIndex)])
        let missing = image.needed.filter { !LibraryResolver.shared.finds($0, searchPath: image.searchPath, origin: origin) }
        if !missing.isEmpty {
            report("library.needed", "the dynamic loader will not find \(missing.joined(separator: ", ")) "
                   + "(searched its RUNPATH, the loader's cache and the system folders)", at: path)
        }
        let reserved: Set<String> = ["deck_plugin_entry", "_init", "_fini", "_edata", "_end", "__bss_start"]
        let stray = image.exports.filter { $0.isFunction && !reserved.contains($0.name) && !$0.name.hasPrefix("$s") && !$0.name.hasPrefix("_$s") }
        if !stray.isEmpty {
            report("library.exports", "\(stray.count) C function(s) exported besides deck_plugin_entry: "
                   + "\(stray.prefix(5).map(\.name).joined(separator: ", "))\(stray.count > 5 ? ", …" : ""); make them static "
                   + "or build with -fvisibility=hidden", at: path)
        }
        // A Swift library carries DeckSDK, which names every extension: only a C library tells.
        let extensions = ["deck.audio", "deck.session", "deck.ui", "deck.content"]
        if !manifest.entitlements.isEmpty, !image.needed.contains(where: { $0.hasPrefix("libswiftCore") }), !extensions.contains(where: image.mentions) {
            report("entitlements.used", "it declares \(manifest.entitlements.map(\.rawValue).sorted().joined(separator: ", ")) but its library never "
                   + "names deck.audio, deck.session, deck.ui or deck.content, the extensions entitlements are for: declare only what it "
                   + "uses (an integrator's policy grants what is declared)", at: bundle + "/manifest.json")
        }
        let sockets: Set<String> = ["socket", "connect", "getaddrinfo"]
        let used = image.imports.filter(sockets.contains) + image.needed.filter { $0.hasPrefix("libcurl") }
        if !used.isEmpty, !manifest.permissions.contains(.network) {
            report("permissions.network", "it uses \(Set(used).sorted().joined(separator: ", ")) but does not declare the network "
                   + "permission: in a host process its sandbox refuses sockets", at: bundle + "/manifest.json")
        }
        let clients = ["libdbus-1", "libsystemd", "libgio-2.0", "libavahi-client", "libpulse", "libpipewire-0.3"]
        let speaks = image.needed.filter { library in clients.contains { library.hasPrefix($0 + ".so") } }
        if !speaks.isEmpty, !manifest.permissions.contains(.services) {
            report("permissions.services", "it links \(speaks.sorted().joined(separator: ", ")), which reach local services over Unix sockets, "
                   + "but does not declare the services permission: in a host process its sandbox refuses Unix sockets", at: bundle + "/manifest.json")
        }
    }
}
