import Glibc

/// An opened plugin library. Swift libraries are never `dlclose`d (unloading a Swift image is
/// unsafe: its metadata stays registered with the Swift runtime). Loop-thread-confined.
package final class PluginLibrary {
    let path: String
    private var handle: UnsafeMutableRawPointer?
    /// Whether the library links the Swift runtime (a `DT_NEEDED` on libswiftCore).
    let isSwift: Bool

    init(path: String) throws(PluginLoadError) {
        dlerror()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            var message = dlerror().map { String(cString: $0) } ?? "unknown error"
            let name = path.split(separator: "/").last ?? ""
            if let machine = ELFMachine(file: path), machine != .host {
                message = "\(name) is built for \(machine); this machine is \(ELFMachine.host): build it for this one (\(message))"
            } else if PluginLibrary.isOnNoexecMount(path) {
                message = "\(name) is on a file system mounted noexec, where no code may be mapped: install the bundle on one that "
                    + "allows it, or mount this one without noexec (\(message))"
            }
            throw PluginLoadError(bundle: path, reason: .dlopenFailed(message))
        }
        self.path = path
        self.handle = handle
        isSwift = PluginLibrary.neededLibraries(of: handle).contains { $0.hasPrefix("libswiftCore") }
    }

    /// Whether `path` is on a file system mounted `noexec` (a USB stick, a hardened /tmp or /home).
    package static func isOnNoexecMount(_ path: String) -> Bool {
        var info = statvfs()
        return statvfs(path, &info) == 0 && info.f_flag & noexecFlag != 0
    }

    /// `ST_NOEXEC`, which Swift's Glibc module does not carry over.
    private static let noexecFlag: UInt = 8

    func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        guard let handle else { return nil }
        return dlsym(handle, name)
    }

    /// Forgets the library; C libraries are unmapped, Swift ones stay mapped.
    func close() {
        guard let handle else { return }
        self.handle = nil
        if !isSwift { dlclose(handle) }
    }

    deinit { close() }

    private typealias DLInfo = @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeMutableRawPointer?) -> Int32

    /// The sonames in the library's dynamic section, read through `dlinfo(RTLD_DI_LINKMAP)`.
    private static func neededLibraries(of handle: UnsafeMutableRawPointer) -> [String] {
        let requestLinkMap: Int32 = 2  // RTLD_DI_LINKMAP, which Glibc's Swift overlay does not import.
        guard let symbol = dlsym(nil, "dlinfo") else { return [] }
        let dlinfo = unsafeBitCast(symbol, to: DLInfo.self)
        var map: UnsafeMutablePointer<link_map>?
        guard dlinfo(handle, requestLinkMap, &map) == 0, var entry = map?.pointee.l_ld else { return [] }
        var stringTable: UInt64 = 0
        var offsets: [UInt64] = []
        while entry.pointee.d_tag != DT_NULL {
            if entry.pointee.d_tag == DT_STRTAB { stringTable = entry.pointee.d_un.d_ptr }
            if entry.pointee.d_tag == DT_NEEDED { offsets.append(entry.pointee.d_un.d_val) }
            entry += 1
        }
        guard stringTable != 0 else { return [] }
        return offsets.compactMap { offset in
            UnsafePointer<CChar>(bitPattern: UInt(stringTable + offset)).map { String(cString: $0) }
        }
    }
}
