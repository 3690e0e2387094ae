import CProcess
import DeckBase
import Glibc

/// How plugins in host processes are run and watched (the config's `"isolation"` object).
public struct IsolationSettings: Sendable, Equatable {
    /// `deck-plugin-host`; nil: found beside the runtime's library or executable.
    public var hostPath: String?
    /// A call into the plugin's code (or a start) not answered within this ends its process.
    public var callTimeoutMilliseconds = 1_000
    public var startTimeoutMilliseconds = 5_000
    /// A host whose loop says nothing for this long is ended.
    public var heartbeatTimeoutMilliseconds = 2_000
    /// How long the audio thread waits for a frame the host has not rendered yet.
    public var renderDeadlineMilliseconds = 10
    /// Frames a host renders ahead: the latency isolation adds to its stream.
    public var aheadFrames = 1
    /// The host's address-space limit (RLIMIT_AS); 0: none.
    public var memoryLimitMegabytes = 1_024
    /// The most processes and threads a host may run: RLIMIT_NPROC on a uid of its own, else its
    /// cgroup counted at each of its heartbeats; 0: none.
    public var processLimit = 256
    /// The largest message a host may send (an image or artwork rides in one).
    public var maxMessageBytes = 24 << 20
    /// A crashed plugin is restarted after this, doubled for each crash in the window...
    public var restartDelayMilliseconds = 250
    /// ...and stays disabled after `restartLimit` crashes within `restartWindowSeconds`.
    public var restartLimit = 3
    public var restartWindowSeconds = 300
    /// When the runtime runs as root, each host runs as a uid of its own, `uidBase` + a number
    /// below 10,000 (as Android gives each app its uid); 0 keeps the runtime's uid.
    public var uidBase = 61_000
    /// Each host restricts itself with Landlock and a network namespace (see `HostSandbox`).
    public var sandbox = true
    /// Hosts are forked by one `deck-plugin-host --zygote` instead of each being started from
    /// scratch (not when `hostPath` names a wrapper: each host then starts through it).
    public var zygote = true
    /// Folders a plugin granted the `media` permission may read.
    public var mediaFolders: [String] = []

    /// The uids hosts run as, or nil when they keep the runtime's (not root, `uidBase` 0, or the
    /// range not mapped in the user namespace the runtime runs in, as in a rootless container).
    public var hostUIDs: ClosedRange<UInt32>? {
        guard uidBase > 0, geteuid() == 0 else { return nil }
        let range = UInt32(uidBase)...UInt32(uidBase + 9_999)
        return IsolationSettings.mappedIDs.allSatisfy { map in map.contains { $0.contains(range.lowerBound) && $0.contains(range.upperBound) } } ? range : nil
    }

    /// The ids this process's user namespace maps (/proc/self/uid_map and gid_map, which a host's
    /// setuid and setgid need), each map as its ranges; set once, when the namespace is made.
    static let mappedIDs: [[ClosedRange<UInt32>]] = ["uid_map", "gid_map"].map { file in
        guard let text = SystemFile.read("/proc/self/\(file)", limit: 64 << 10) else { return [0...UInt32.max] }  // no user namespaces: every id
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").compactMap { UInt64($0) }
            guard fields.count == 3, fields[2] > 0, fields[0] + fields[2] - 1 <= UInt64(UInt32.max) else { return nil }
            return UInt32(fields[0])...UInt32(fields[0] + fields[2] - 1)
        }
    }

    /// True in the machine's own user namespace, whose uid map is every id (not a container's).
    static var isInitialUserNamespace: Bool { mappedIDs[0] == [0...UInt32.max - 1] }

    /// A uid from `hostUIDs` for a new host that `busy` (the uids processes use now, and those
    /// of hosts started but not yet running as theirs) does not hold: the owner of the plugin's
    /// data folder when it is free (its files then need no new owner), else a random free one (its
    /// processes are then the plugin's alone; several runtimes on one machine draw from the same
    /// range). Nil when hosts keep the runtime's uid or none is free.
    func hostUID(keeping dataFolder: String?, busy: Set<UInt32>) -> UInt32? {
        guard let range = hostUIDs else { return nil }
        var info = stat()
        if let dataFolder, stat(dataFolder, &info) == 0, range.contains(info.st_uid), !busy.contains(info.st_uid) {
            return info.st_uid
        }
        for _ in 0..<64 {
            let candidate = UInt32.random(in: range)
            if !busy.contains(candidate) { return candidate }
        }
        return nil
    }

    /// What holds for hosts on this kernel and with this privilege, logged with the first host.
    func sandboxSummary(cgroups: HostCgroups) -> String {
        var parts: [String] = []
        let root = hostUIDs == nil && geteuid() == 0
        let why = uidBase > 0 ? "the uids from uidBase are not mapped in this user namespace" : "uidBase 0"
        parts.append(hostUIDs.map { "a uid of its own (\($0.lowerBound)…\($0.upperBound))" }
                     ?? (root ? "root's uid (\(why)): root's files and its standing with local services" : "the runtime's uid (not root, or uidBase 0)"))
        parts.append("no capabilities")
        let runtimeUIDRules = hostUIDs == nil && sandbox ? ", files' modes, owners and attributes, io_uring, keyrings" : ""
        let sandboxRules = sandbox ? ", Unix sockets unless granted services" : ""
        parts.append(deck_seccomp_available() != 0
                     ? "a seccomp filter (its subreaper flag, other ABIs, others' scheduling and limits\(runtimeUIDRules)\(sandboxRules))"
                     : "NO seccomp filter (\(String(cString: strerror(errno)))): a plugin could clear its host's subreaper flag" + (hostUIDs == nil ? " and change the modes of deckd's files, its scheduling and its limits" : ""))
        if sandbox {
            let abi = deck_landlock_abi()
            parts.append(abi >= 1 ? "Landlock ABI \(abi)" + (abi < 4 ? " (no TCP rules before ABI 4)" : "") + (abi < 6 ? " (no signal or abstract-socket scopes before ABI 6)" : "")
                                  : "NO Landlock (\(String(cString: strerror(errno)))): a same-uid host can read and write what deckd's user can")
            parts.append("a network namespace unless granted network")
        } else {
            parts.append("NO Landlock or network namespace (isolation.sandbox is false)")
        }
        if processLimit > 0 && (hostUIDs != nil || cgroups.parent != nil) {
            parts.append("at most \(processLimit) processes and threads " + (hostUIDs != nil ? "a uid" : "a host (its cgroup, counted)"))
        }
        parts.append(cgroups.parent.map { "a cgroup each under \($0)" } ?? "NO cgroups (\(cgroups.unavailable ?? "")): " + (hostUIDs == nil ? "its host's descendants are ended instead (in libdeck, not a crashed host's orphans)" : "its uid's processes are ended instead"))
        return parts.joined(separator: "; ")
    }

    /// What a host's environment holds: a short allow-list (and in a sanitizer build, its options),
    /// nothing else of the runtime's (no tokens, no paths, no D-Bus address).
    public static func hostEnvironment() -> [String] {
        var environment = ["PATH=/usr/local/bin:/usr/bin:/bin"]
        for name in ["LANG", "LC_ALL", "LC_CTYPE", "TZ"] + (SanitizerBuild.active ? SanitizerBuild.optionVariables : []) {
            if let value = getenv(name) { environment.append("\(name)=\(String(cString: value))") }
        }
        // A crash ends the host at once (the log names the signal) unless the integrator asks for reports.
        environment.append("SWIFT_BACKTRACE=" + (getenv("SWIFT_BACKTRACE").map { String(cString: $0) } ?? "enable=no"))
        return environment
    }

    public init() {}

    /// Makes this process not dumpable: its `/proc` files (environment, memory, descriptors) are
    /// then root's, out of reach of plugins' processes that share its uid. deckd calls it; an
    /// embedding program decides for itself.
    public static func hideFromPlugins() { _ = deck_set_dumpable(0) }

    /// `deck-plugin-host` as configured, else the first found beside the image holding this code
    /// (libdeck.so: `<libdir>/deck/`) or beside the running executable.
    public func resolvedHostPath() -> String? {
        if let hostPath { return hostPath }
        var candidates: [String] = []
        if let name = deck_image_path(unsafeBitCast(IsolationSettings.marker, to: UnsafeRawPointer.self)) {
            let folder = IsolationSettings.folder(of: String(cString: name))
            candidates += ["\(folder)/deck-plugin-host", "\(folder)/deck/deck-plugin-host"]
        }
        if let executable = realpath("/proc/self/exe", nil) {
            candidates.append("\(IsolationSettings.folder(of: String(cString: executable)))/deck-plugin-host")
            free(executable)
        }
        return candidates.first { access($0, X_OK) == 0 }
    }

    private static let marker: @convention(c) () -> Void = {}

    private static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }
}
