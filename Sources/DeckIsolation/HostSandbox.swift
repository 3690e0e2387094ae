import CProcess
import DeckBase
import Glibc

/// The Landlock rules a host process puts on itself before the plugin's code loads: it may read
/// the system's libraries and its own bundle, write only its data folder, read the media folders
/// and reach the network only when granted, and neither signal nor reach abstract sockets
/// outside itself. What the kernel's Landlock ABI lacks is reported, not faked.
struct HostSandbox {
    var bundle: String
    var dataFolder: String?
    var mediaFolders: [String] = []
    var network = false

    /// Landlock's access bits (linux/landlock.h), and the ABI each arrived in.
    enum Access {
        static let execute: UInt64 = 1 << 0, writeFile: UInt64 = 1 << 1, readFile: UInt64 = 1 << 2, readDir: UInt64 = 1 << 3
        static let refer: UInt64 = 1 << 13, truncate: UInt64 = 1 << 14, ioctlDevice: UInt64 = 1 << 15
        static let bindTCP: UInt64 = 1 << 0, connectTCP: UInt64 = 1 << 1
        static let abstractUnixSockets: UInt64 = 1 << 0, signals: UInt64 = 1 << 1

        /// Every filesystem access the ABI knows (all of them are handled: what no rule allows is denied).
        static func filesystem(abi: Int) -> UInt64 {
            var all: UInt64 = (1 << 13) - 1
            if abi >= 2 { all |= refer }
            if abi >= 3 { all |= truncate }
            if abi >= 5 { all |= ioctlDevice }
            return all
        }
        static let readOnly = execute | readFile | readDir
        static let fileReadOnly = execute | readFile
    }

    /// System folders and files every host reads (libraries, the dynamic loader's cache, time
    /// zones, name resolution and certificates for plugins granted the network).
    static let systemPaths = ["/usr", "/lib", "/lib64", "/lib32", "/bin", "/etc/ld.so.cache", "/etc/localtime", "/etc/nsswitch.conf",
                              "/etc/hosts", "/etc/host.conf", "/etc/resolv.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols",
                              "/etc/ssl", "/etc/ca-certificates", "/etc/passwd", "/etc/group", "/proc/self", "/proc/cpuinfo",
                              "/proc/meminfo", "/sys/devices/system/cpu"]
    static let devices = ["/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"]

    /// What held, for the log ("Landlock ABI 7: files, TCP, scopes"), why nothing did, or which
    /// thread it could not hold on (the calling thread is then restricted, the process is not).
    enum Outcome: Equatable {
        case applied(abi: Int, covers: [String])
        case unavailable(String)
        case incomplete(String)
    }

    /// Restricts the calling thread and, through `otherThread` (which runs the enforcement it is
    /// given on the process's one other thread and answers 0 or an errno), that one: Landlock
    /// holds per thread, and on every thread and process started after. Needs `no_new_privs`.
    func apply(otherThread: (_ enforce: @escaping @Sendable () -> Int32) -> Int32) -> Outcome {
        let abi = Int(deck_landlock_abi())
        guard abi >= 1 else { return .unavailable("Landlock: \(String(cString: strerror(errno)))") }
        let filesystem = Access.filesystem(abi: abi)
        let tcp = abi >= 4 && !network ? Access.bindTCP | Access.connectTCP : 0
        let scopes = abi >= 6 ? Access.abstractUnixSockets | Access.signals : 0
        let ruleset = deck_landlock_ruleset(filesystem, tcp, scopes)
        guard ruleset >= 0 else { return .unavailable("Landlock ruleset: \(String(cString: strerror(errno)))") }
        defer { close(ruleset) }
        var readable = HostSandbox.systemPaths + HostSandbox.loadedFolders + [bundle]
        if !mediaFolders.isEmpty { readable += mediaFolders }
        for path in readable { HostSandbox.allow(path, Access.readOnly & filesystem, in: ruleset) }
        let device = (Access.readFile | Access.writeFile | (abi >= 3 ? Access.truncate : 0) | (abi >= 5 ? Access.ioctlDevice : 0))
        for path in HostSandbox.devices { HostSandbox.allow(path, device, in: ruleset) }
        if let dataFolder { HostSandbox.allow(dataFolder, filesystem, in: ruleset) }
        if let reports = SanitizerBuild.logFolder { HostSandbox.allow(reports, filesystem, in: ruleset) }
        guard deck_landlock_enforce(ruleset) == 0 else { return .unavailable("Landlock enforce: \(String(cString: strerror(errno)))") }
        let refused = otherThread { deck_no_new_privs() == 0 && deck_landlock_enforce(ruleset) == 0 ? 0 : errno }
        guard refused == 0 else { return .incomplete("Landlock on the render thread: \(String(cString: strerror(refused)))") }
        var covers = ["files"]
        covers.append(tcp != 0 ? "TCP" : network ? "TCP (network granted)" : "no TCP rules (ABI < 4)")
        covers.append(scopes != 0 ? "signals and abstract sockets" : "no scopes (ABI < 6)")
        return .applied(abi: abi, covers: covers)
    }

    /// Adds a rule for `path` if it exists; a file gets only the rights that apply to files.
    private static func allow(_ path: String, _ access: UInt64, in ruleset: Int32) {
        let descriptor = open(path, 0o10000000 /* O_PATH */ | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return }
        let isDirectory = info.st_mode & S_IFMT == S_IFDIR
        let fileRights = Access.execute | Access.writeFile | Access.readFile | Access.truncate | Access.ioctlDevice
        _ = deck_landlock_allow_beneath(ruleset, descriptor, isDirectory ? access : access & fileRights)
    }

    /// The folders of the code mapped into this process (its libraries and the Swift runtime's),
    /// so a library the plugin loads later from beside them is found. Read once: the zygote reads
    /// it before it forks, and its hosts inherit it.
    static let loadedFolders = codeFolders(inMaps: SystemFile.read("/proc/self/maps") ?? "")

    /// The folders of the files mapped executable in a `/proc/PID/maps` text ("start-end perms
    /// offset device inode path"); not those of data files mapped (a sanitizer maps one in /tmp).
    static func codeFolders(inMaps maps: String) -> [String] {
        var folders = Set<String>()
        for line in maps.split(separator: "\n") {
            guard line.split(separator: " ", maxSplits: 2).dropFirst().first?.contains("x") == true,
                  let slash = line.firstIndex(of: "/"), let last = line.lastIndex(of: "/"), slash < last else { continue }
            folders.insert(String(line[slash..<last]))
        }
        return folders.sorted()
    }
}

extension HostSandbox.Outcome: CustomStringConvertible {
    var description: String {
        switch self {
        case .applied(let abi, let covers): "Landlock ABI \(abi): \(covers.joined(separator: ", "))"
        case .unavailable(let reason), .incomplete(let reason): reason
        }
    }
}
