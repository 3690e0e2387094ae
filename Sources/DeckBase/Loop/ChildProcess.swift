import CProcess
import Glibc
import Synchronization

/// A child process started with `posix_spawn` and watched on the loop through its pidfd (or, on
/// kernels without one, polled), so the runtime never installs a SIGCHLD handler: an embedder's
/// signal dispositions stay its own.
/// Loop-thread-confined.
public final class ChildProcess {
    /// How a child ended.
    public enum Ending: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case killed(signal: Int32)
        /// Someone else reaped it first.
        case unknown

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .killed(let signal): "was killed by signal \(signal) (\(ChildProcess.signalName(signal)))"
            case .unknown: "ended (its exit status was taken by another waiter)"
            }
        }
    }

    public let pid: pid_t
    /// Readable when the child ends; -1 where the kernel has no pidfd_open (before Linux 5.3),
    /// and the child is polled every 50 ms instead.
    private let pidfd: Int32
    private var watcher: LoopHandle?
    /// Runs once on the loop when the child ends (not after `close()`).
    public var onExit: ((Ending) -> Void)?
    public private(set) var ending: Ending?
    private var isClosed = false

    /// Starts `path` with `arguments`; `descriptors[i]` becomes the child's descriptor 3 + i and
    /// every other descriptor of ours is closed on exec. The child starts in its own process group
    /// with no signal blocked and default dispositions, with our environment plus `environment`
    /// (`NAME=value` entries; ours win for names we have), or with `environment` alone when
    /// `inheritEnvironment` is false; `isolated` also gives it /dev/null as descriptors 0–2
    /// instead of ours. `pidfd` false polls as old kernels must.
    public convenience init(loop: EventLoop, path: String, arguments: [String], descriptors: [Int32], environment: [String] = [],
                            inheritEnvironment: Bool = true, isolated: Bool = false, pidfd usePidfd: Bool = true) throws(LoopError) {
        let pid = try ChildProcess.spawn(path, arguments, descriptors: descriptors, environment: environment,
                                         inheritEnvironment: inheritEnvironment, isolated: isolated)
        try self.init(loop: loop, child: pid, pidfd: usePidfd)
    }

    /// Watches `pid`, a child of this process started another way (forked by a zygote with
    /// CLONE_PARENT); it is killed and reaped if it cannot be watched.
    public init(loop: EventLoop, child pid: pid_t, pidfd usePidfd: Bool = true) throws(LoopError) {
        self.pid = pid
        ChildProcess.watched.withLock { _ = $0.insert(pid) }
        pidfd = usePidfd ? deck_pidfd_open(pid) : -1
        do {
            if pidfd >= 0 {
                let poll = try FileWatcher(loop: loop, fileDescriptor: pidfd)
                poll.start(writable: false) { [unowned self] in reap(blocking: false) }
                watcher = poll
            } else {
                let timer = try LoopTimer(loop: loop)
                timer.start(after: 50, repeat: 50) { [unowned self] in reap(blocking: false) }
                watcher = timer
            }
        } catch {
            Glibc.kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
            ChildProcess.watched.withLock { _ = $0.remove(pid) }
            if pidfd >= 0 { Glibc.close(pidfd) }
            throw error
        }
    }

    private static func spawn(_ path: String, _ arguments: [String], descriptors: [Int32], environment: [String],
                              inheritEnvironment: Bool, isolated: Bool) throws(LoopError) -> pid_t {
        // Sources below the targets would be overwritten by an earlier dup2; move them up first.
        let lowest = Int32(3 + descriptors.count)
        var moved: [Int32] = []
        defer { moved.forEach { _ = Glibc.close($0) } }
        let sources = descriptors.map { fd -> Int32 in
            guard fd < lowest else { return fd }
            let copy = fcntl(fd, F_DUPFD_CLOEXEC, lowest)
            moved.append(copy)
            return copy
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (index, fd) in sources.enumerated() { posix_spawn_file_actions_adddup2(&actions, fd, Int32(3 + index)) }
        if isolated {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        _ = posix_spawn_file_actions_addclosefrom_np(&actions, lowest)  // what others left without O_CLOEXEC
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var inherited: [String] = []
        var entry = Glibc.environ
        while inheritEnvironment, let text = entry.pointee {
            inherited.append(String(cString: text))
            entry += 1
        }
        let names = Set(inherited.compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        let added = environment.filter { !names.contains(String($0.split(separator: "=", maxSplits: 1).first ?? "")) }
        let envp = (inherited + added).map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard status == 0 else { throw LoopError("posix_spawn \(path)", code: -status) }
        return child
    }

    public var isRunning: Bool { ending == nil }

    /// Kills every process `uid` owns (what a plugin's host left behind, `setsid` children and
    /// orphans included, when the host ran as a uid of its own); the number killed.
    @discardableResult
    public static func killAll(ownedBy uid: uid_t) -> Int {
        guard uid != 0, uid != geteuid() else { return 0 }
        return processes(ownedBy: uid).filter { Glibc.kill($0, SIGKILL) == 0 }.count
    }

    /// The uids that own a process now.
    public static func uidsInUse() -> Set<uid_t> { Set(processOwners().map(\.uid)) }

    /// The processes `uid` owns now.
    public static func processes(ownedBy uid: uid_t) -> [pid_t] { processOwners().filter { $0.uid == uid }.map(\.pid) }

    /// Every process (but init) and its owner, from /proc.
    private static func processOwners() -> [(pid: pid_t, uid: uid_t)] {
        var info = stat()
        return (FolderEntries.names(in: "/proc") ?? []).compactMap { name in
            guard let pid = pid_t(name), pid > 1, stat("/proc/\(name)", &info) == 0 else { return nil }
            return (pid, info.st_uid)
        }
    }

    /// Sends `signal` to the child while it runs.
    public func kill(_ signal: Int32) {
        guard ending == nil else { return }
        Glibc.kill(pid, signal)
    }

    /// Stops watching; a child still running is killed and reaped first, so none is left behind.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        onExit = nil
        if ending == nil {
            kill(SIGKILL)
            reap(blocking: true)
        }
        watcher?.close()
        watcher = nil
        if pidfd >= 0 { Glibc.close(pidfd) }
    }

    deinit { close() }

    /// Waits up to `milliseconds` for the child to end; its ending, or nil while it runs.
    public func waitForEnd(milliseconds: Int32) -> Ending? {
        reap(blocking: false)
        if ending == nil && pidfd >= 0 {
            var poller = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, milliseconds) > 0 { reap(blocking: false) }
        }
        var waited: Int32 = 0
        while ending == nil && pidfd < 0 && waited < milliseconds {
            usleep(1_000)
            waited += 1
            reap(blocking: false)
        }
        return ending
    }

    private func reap(blocking: Bool) {
        guard ending == nil else { return }
        var code: Int32 = 0, status: Int32 = 0
        var result = deck_reap_child(pidfd, pid, &code, &status)
        while blocking && result == 0 {
            if pidfd >= 0 {
                var poller = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
                _ = poll(&poller, 1, 1000)
            } else {
                usleep(1_000)
            }
            result = deck_reap_child(pidfd, pid, &code, &status)
        }
        switch result {
        case 0: return
        case 1: ending = code == CLD_EXITED ? .exited(status) : .killed(signal: status)
        default: ending = .unknown
        }
        ChildProcess.watched.withLock { _ = $0.remove(pid) }
        watcher?.close()
        watcher = nil
        if let ending, let onExit {
            self.onExit = nil
            onExit(ending)
        }
    }

    /// The children some ChildProcess watches until it reaps them, in every loop of this process.
    private static let watched = Mutex<Set<pid_t>>([])

    /// Whether a ChildProcess watches `pid`, so that it, and nothing else, reaps it.
    public static func isWatched(_ pid: pid_t) -> Bool { watched.withLock { $0.contains(pid) } }

    /// "SIGSEGV" for 11.
    public static func signalName(_ signal: Int32) -> String {
        deck_signal_name(signal).map { "SIG" + String(cString: $0) } ?? "signal \(signal)"
    }
}
