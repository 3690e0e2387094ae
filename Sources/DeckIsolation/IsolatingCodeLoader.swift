import CProcess
import DeckMedia
import DeckBase
import DeckPlugins
import Glibc

/// Loads each plugin inline or into a `deck-plugin-host` process of its own, as the isolation
/// policy says. A host is started with its socket, ring memory and wake-ups as descriptors 3 to 6,
/// and must report within `startTimeoutMilliseconds` that the plugin's code loaded.
/// Loop-thread-confined.
package final class IsolatingCodeLoader: PluginCodeLoader {
    private let policy: IsolationPolicy
    private let settings: IsolationSettings
    private let frames: Int
    private let frameMilliseconds: Int
    /// Frames in each host's ring: `aheadFrames`, and at least 8 in freewheel, where latency
    /// does not matter and a deeper ring lets a host render in bursts.
    private let slots: Int
    /// How long the mix waits for a host's frame: `renderDeadlineMs`, and in freewheel, where a
    /// plugin may wait for its own decoder, three quarters of the audio thread's render timeout, for every frame.
    private let renderDeadline: RingRenderer.Deadline
    private let loop: EventLoop
    /// Times the hosts' heartbeats: the loop, or a test's virtual scheduler.
    private let scheduler: any Scheduler
    /// `deck-plugin-host`, once found (looked for again while it is not).
    private var hostPath: String?
    /// Told the instance number and the story when an isolated plugin's process ends on its own
    /// or is ended (not after destroy).
    package var onEnd: ((Int, String) -> Void)?
    /// A cgroup per host where the runtime may make them; made with the first host.
    private var cgroupsIfMade: HostCgroups?
    private let deadline = CallDeadline()

    package init(policy: IsolationPolicy, settings: IsolationSettings, frames: Int, freewheel: Bool, renderTimeoutMilliseconds: Int,
                 loop: EventLoop, scheduler: (any Scheduler)? = nil) {
        self.policy = policy
        self.settings = settings
        self.frames = frames
        slots = freewheel ? max(settings.aheadFrames, 8) : settings.aheadFrames
        renderDeadline = freewheel
            ? .init(milliseconds: max(settings.renderDeadlineMilliseconds, renderTimeoutMilliseconds * 3 / 4), waitsWhileLate: true)
            : .init(milliseconds: settings.renderDeadlineMilliseconds, waitsWhileLate: false)
        frameMilliseconds = max(1, frames / 48)
        self.loop = loop
        self.scheduler = scheduler ?? loop
    }

    package func load(_ plan: CodePlan, host: PluginHost, logger: Logger) throws(PluginLoadError.Reason) -> any PluginCode {
        guard policy.mode(for: plan.manifest.id) == .process else {
            return try InProcessCodeLoader().load(plan, host: host, logger: logger)
        }
        let started: StartedHost
        if let ready = prepared.removeValue(forKey: plan.library), ready.plan == plan {
            started = ready
        } else {
            try started = start(plan, logger: logger)
        }
        let process = started.process, channel = started.channel, remains = started.remains
        /// Lets the process end (or kills it) and closes the socket; how it ended, if it did by itself.
        func abandon() -> ChildProcess.Ending? {
            remains.endDescendants(of: process)
            let ending = process.waitForEnd(milliseconds: 500)
            process.close()
            channel.close()
            remains.end()
            return ending
        }
        func fail(_ problem: String) -> PluginLoadError.Reason {
            .isolationFailed(problem + (abandon().map { "; the process \($0)" } ?? ""))
        }
        let answer: Result<Bool, PluginLoadError.Reason>
        do throws(WireError) {
            answer = try IsolatingCodeLoader.hello(channel, host: host, timeout: Int32(settings.startTimeoutMilliseconds))
        } catch {
            if case .timedOut = error {
                remains.endDescendants(of: process)
                process.kill(SIGKILL)
            }
            throw fail("loading \(plan.manifest.id): \(error)")
        }
        let isSwift: Bool
        switch answer {
        case .success(let swift): isSwift = swift
        case .failure(let reason):
            _ = abandon()
            throw reason
        }
        do {
            let code = try IsolatedPluginCode(process: process, channel: channel, ring: started.ring, isSwift: isSwift, host: host,
                                              settings: settings, renderDeadline: renderDeadline, remains: remains, deadline: deadline,
                                              frameMilliseconds: frameMilliseconds,
                                              loop: loop, scheduler: scheduler) { [weak self, instance = host.instance] story in
                self?.onEnd?(instance, story)
            }
            logger.debug("isolation", "\(plan.manifest.id) runs in process \(process.pid)")
            return code
        } catch {
            throw fail("\(error)")
        }
    }

    /// Starts the hosts of every isolated plan at once; each load then only waits for its hello.
    package func prepare(_ plans: [CodePlan], logger: Logger) {
        busyUIDs = settings.hostUIDs == nil ? nil : ChildProcess.uidsInUse()  // one look at /proc for the batch
        defer { busyUIDs = nil }
        for plan in plans where policy.mode(for: plan.manifest.id) == .process && prepared[plan.library] == nil {
            prepared[plan.library] = try? start(plan, logger: logger)  // a failure is met again, and reported, by its load
        }
    }

    /// Ends the hosts started for loads that did not come (their bundle failed a later check).
    package func discardPrepared() {
        for started in prepared.values {
            started.remains.endDescendants(of: started.process)
            started.process.close()
            started.channel.close()
            started.remains.end()
        }
        prepared = [:]
    }

    /// A host process started for `plan`, its socket and ring, not yet heard from.
    private struct StartedHost {
        var plan: CodePlan
        var process: ChildProcess
        var channel: WireChannel
        var ring: AudioRing
        var remains: HostRemains
    }

    /// The zygote hosts are forked from, once started; nil before, or when it is not used.
    private var zygote: HostZygote?
    /// Its process, while it runs.
    package var zygoteProcessID: pid_t? { zygote?.isRunning == true ? zygote?.pid : nil }
    /// Why hosts are started without the zygote, once it failed.
    private var zygoteFailure: String?

    /// A host forked by the zygote (started with the first host); nil when hosts are to be
    /// spawned instead: the zygote is off, `hostPath` names a wrapper, or it failed (logged once).
    private func forkFromZygote(path: String, arguments: [String], descriptors: [Int32], logger: Logger) -> pid_t? {
        guard settings.zygote, settings.hostPath == nil, zygoteFailure == nil else { return nil }
        do {
            if zygote?.isRunning != true { zygote = try HostZygote(loop: loop, path: path) }  // first, or again after it died
            return try zygote!.fork(arguments, descriptors: descriptors)
        } catch let error as ZygoteError {
            if case .gone(let reason) = error {
                zygoteFailure = reason
                zygote = nil
                logger.warning("isolation", "plugin hosts are started one by one from now on: \(reason)")
            }
            return nil
        } catch {
            zygoteFailure = "\(error)"
            logger.warning("isolation", "plugin hosts are started one by one: the zygote did not start: \(error)")
            return nil
        }
    }

    /// While `prepare` starts a batch: the uids in use when it began, and those it gave out.
    private var busyUIDs: Set<UInt32>?

    /// Hosts started ahead by `prepare`, by library.
    private var prepared: [String: StartedHost] = [:]

    /// Spawns the host for `plan` with its socket, ring and wake-ups as descriptors 3 to 6.
    private func start(_ plan: CodePlan, logger: Logger) throws(PluginLoadError.Reason) -> StartedHost {
        let id = plan.manifest.id
        if hostPath == nil { hostPath = settings.resolvedHostPath() }
        guard let path = hostPath else {
            throw .isolationFailed("deck-plugin-host was not found beside the runtime; set isolation.hostPath, or run \(id) inline")
        }
        var arguments = HostArguments()
        arguments.library = plan.library
        arguments.bundle = plan.bundle
        arguments.id = id
        arguments.entitlements = plan.entitlements
        arguments.frames = frames
        arguments.slots = slots
        arguments.memoryMegabytes = settings.memoryLimitMegabytes
        arguments.processLimit = settings.processLimit
        arguments.heartbeatMilliseconds = max(10, settings.heartbeatTimeoutMilliseconds / 4)
        arguments.maxMessageBytes = settings.maxMessageBytes
        arguments.logLevel = logger.level
        arguments.realtimePriority = RenderSource.realtimePriority
        arguments.permissions = plan.permissions
        arguments.dataFolder = plan.dataFolder ?? ""
        arguments.settings = plan.settings
        arguments.freewheeling = plan.freewheeling
        arguments.mediaFolders = plan.permissions.contains(.media) ? settings.mediaFolders : []
        arguments.sandbox = settings.sandbox
        if settings.hostUIDs != nil {
            if let closed = IsolatingCodeLoader.closedToOthers(plan.library) {
                throw .isolationFailed("\(closed) is not readable by other users, and the plugin runs as a uid of its own "
                                       + "(isolation.uidBase): make it readable (chmod o+rx on folders, o+r on files), or set isolation.uidBase to 0")
            }
            // Hosts started ahead may not have taken their uid yet: theirs are not free either.
            var busy = busyUIDs ?? ChildProcess.uidsInUse()
            busy.formUnion(prepared.values.map(\.remains.uid))
            guard let uid = settings.hostUID(keeping: plan.dataFolder, busy: busy) else {
                throw .isolationFailed("no uid in isolation.uidBase's range is free for the host")
            }
            busyUIDs?.insert(uid)
            arguments.uid = uid
            if let folder = plan.dataFolder, let problem = DataFolderOwner.give(folder, to: uid) ?? DataFolderOwner.unreachable(folder, by: uid) {
                logger.warning("isolation", "\(id)'s data folder: \(problem)")
            }
        }
        let groups = cgroups(logging: logger)
        let cgroup = groups.make()
        arguments.cgroup = cgroup ?? ""

        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw .isolationFailed("socketpair: \(String(cString: strerror(errno)))")
        }
        defer { close(pair[1]) }
        do {
            let ring = try AudioRing(frames: frames, slots: slots, name: "deck-audio")
            let descriptors = [pair[1], ring.memory, ring.space, ring.filled]
            let process: ChildProcess
            if let pid = forkFromZygote(path: path, arguments: arguments.commandLine, descriptors: descriptors, logger: logger) {
                process = try ChildProcess(loop: loop, child: pid)
            } else {
                process = try ChildProcess(loop: loop, path: path, arguments: arguments.commandLine, descriptors: descriptors,
                                           environment: IsolationSettings.hostEnvironment(), inheritEnvironment: false, isolated: true)
            }
            return StartedHost(plan: plan, process: process, channel: WireChannel(descriptor: pair[0], maxMessageBytes: settings.maxMessageBytes),
                               ring: ring, remains: HostRemains(uid: arguments.uid, processGroup: process.pid, cgroup: cgroup.map { ($0, groups) }))
        } catch {
            close(pair[0])
            if let cgroup { groups.end(cgroup) }
            throw .isolationFailed("\(error)")
        }
    }

    /// The hosts' cgroups, made (and what the sandbox holds on this machine logged) with the first host.
    private func cgroups(logging logger: Logger) -> HostCgroups {
        if let cgroupsIfMade { return cgroupsIfMade }
        let groups = HostCgroups()
        logger.info("isolation", "sandbox: " + settings.sandboxSummary(cgroups: groups))
        cgroupsIfMade = groups
        return groups
    }

    /// From now on, calls into hosts wait at most until `milliseconds` from now: a host that has
    /// not answered by then is ended, and one asked after it is ended without being asked.
    package func answerWithin(milliseconds: Int) {
        deadline.milliseconds = MonotonicClock.milliseconds + milliseconds
    }

    /// The folder of the hosts' cgroups, once the first host made it; nil until then or without cgroups.
    package var cgroupFolder: String? { cgroupsIfMade?.parent }

    /// Removes the hosts' cgroups (after every plugin was unloaded), killing what is left in them.
    package func removeCgroups() {
        zygote = nil
        cgroupsIfMade?.removeAll()
    }

    /// The first of `library` and the folders above it that another user could not read or pass
    /// through, or nil.
    static func closedToOthers(_ library: String) -> String? {
        var info = stat()
        guard stat(library, &info) == 0 else { return nil }  // the loader reports a missing file itself
        if info.st_mode & S_IROTH == 0 { return library }
        var folder = library
        while let slash = folder.lastIndex(of: "/"), slash != folder.startIndex {
            folder = String(folder[..<slash])
            if stat(folder, &info) == 0, info.st_mode & S_IXOTH == 0 { return folder }
        }
        return nil
    }

    /// Waits for the host's hello, logging what it says before: whether the code is Swift, or
    /// why it did not load.
    private static func hello(_ channel: WireChannel, host: PluginHost, timeout: Int32) throws(WireError) -> Result<Bool, PluginLoadError.Reason> {
        while true {
            var message = try channel.receive(timeoutMs: timeout)
            switch message.kind {
            case .event:
                if case .log(let level, let text) = try message.read(HostEvent.self) { host.log(level, text: text, forwarded: true) }
            case .hello:
                let hello: HostHello = try message.read()
                try message.finish()
                switch hello {
                case .loaded(let isSwift): return .success(isSwift)
                case .refused(let reason): return .failure(reason)
                }
            default: throw .invalid("expected a hello, got \(message.kind)")
            }
        }
    }
}
