import DeckAudio
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
    private let loop: EventLoop
    /// `deck-plugin-host`, once found (looked for again while it is not).
    private var hostPath: String?
    /// Told the instance number and the story when an isolated plugin's process ends on its own
    /// or is ended (not after destroy).
    package var onEnd: ((Int, String) -> Void)?
    /// A cgroup per host where the runtime may make them; made with the first host.
    private var cgroups: HostCgroups {
        if let cgroupsIfMade { return cgroupsIfMade }
        let groups = HostCgroups()
        logger?.info("isolation", "sandbox: " + settings.sandboxSummary(cgroups: groups))
        cgroupsIfMade = groups
        return groups
    }
    private var cgroupsIfMade: HostCgroups?
    private var logger: Logger?

    package init(policy: IsolationPolicy, settings: IsolationSettings, frames: Int, loop: EventLoop) {
        self.policy = policy
        self.settings = settings
        self.frames = frames
        frameMilliseconds = max(1, frames / 48)
        self.loop = loop
    }

    package func load(library: String, bundle: String, manifest: PluginManifest, host: PluginHost,
                      logger: Logger) throws(PluginLoadError.Reason) -> any PluginCode {
        guard policy.mode(for: manifest.id) == .process else {
            return try InProcessCodeLoader().load(library: library, bundle: bundle, manifest: manifest, host: host, logger: logger)
        }
        if hostPath == nil { hostPath = settings.resolvedHostPath() }
        guard let path = hostPath else {
            throw .isolationFailed("deck-plugin-host was not found beside the runtime; set isolation.hostPath, or run \(manifest.id) inline")
        }
        var arguments = HostArguments()
        arguments.library = library
        arguments.bundle = bundle
        arguments.id = manifest.id
        arguments.entitlements = host.entitlements
        arguments.frames = frames
        arguments.slots = settings.aheadFrames
        arguments.memoryMegabytes = settings.memoryLimitMegabytes
        arguments.heartbeatMilliseconds = max(10, settings.heartbeatTimeoutMilliseconds / 8)
        arguments.maxMessageBytes = settings.maxMessageBytes
        arguments.logLevel = logger.level
        arguments.realtimePriority = AudioEngine.realtimePriority
        arguments.permissions = host.permissions
        arguments.dataFolder = host.dataFolder ?? ""
        arguments.mediaFolders = host.permissions.contains(.media) ? settings.mediaFolders : []
        arguments.sandbox = settings.sandbox
        if settings.hostUIDs != nil {
            if let closed = IsolatingCodeLoader.closedToOthers(library) {
                throw .isolationFailed("\(closed) is not readable by other users, and the plugin runs as a uid of its own "
                                       + "(isolation.uidBase): make it readable (chmod o+rx on folders, o+r on files), or set isolation.uidBase to 0")
            }
            guard let uid = settings.hostUID(keeping: host.dataFolder) else {
                throw .isolationFailed("no uid in isolation.uidBase's range is free for the host")
            }
            arguments.uid = uid
            if let folder = host.dataFolder, let problem = DataFolderOwner.give(folder, to: uid) {
                logger.warning("isolation", "\(manifest.id)'s data folder: \(problem)")
            }
        }
        self.logger = logger
        let cgroup = cgroups.make()
        arguments.cgroup = cgroup ?? ""

        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw .isolationFailed("socketpair: \(String(cString: strerror(errno)))")
        }
        let ring: AudioRing
        let process: ChildProcess
        do {
            ring = try AudioRing(frames: frames, slots: settings.aheadFrames, name: "deck-audio")
            process = try ChildProcess(loop: loop, path: path, arguments: arguments.commandLine,
                                       descriptors: [pair[1], ring.memory, ring.space, ring.filled],
                                       environment: IsolationSettings.hostEnvironment(), inheritEnvironment: false, isolated: true)
        } catch {
            close(pair[0])
            close(pair[1])
            if let cgroup { cgroups.end(cgroup) }
            throw .isolationFailed("\(error)")
        }
        close(pair[1])
        let channel = WireChannel(descriptor: pair[0], maxMessageBytes: settings.maxMessageBytes)
        /// Lets the process end (or kills it) and closes the socket; how it ended, if it did by itself.
        let remains = HostRemains(uid: arguments.uid, processGroup: process.pid, cgroup: cgroup, cgroups: cgroups)
        func abandon() -> ChildProcess.Ending? {
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
            if case .timedOut = error { process.kill(SIGKILL) }
            throw fail("loading \(manifest.id): \(error)")
        }
        let isSwift: Bool
        switch answer {
        case .success(let swift): isSwift = swift
        case .failure(let reason):
            _ = abandon()
            throw reason
        }
        do {
            let code = try IsolatedPluginCode(process: process, channel: channel, ring: ring, isSwift: isSwift, host: host, settings: settings,
                                              remains: remains, frameMilliseconds: frameMilliseconds, loop: loop) { [weak self, instance = host.instance] story in
                self?.onEnd?(instance, story)
            }
            logger.debug("isolation", "\(manifest.id) runs in process \(process.pid)")
            return code
        } catch {
            throw fail("\(error)")
        }
    }

    /// Removes the hosts' cgroups (after every plugin was unloaded), killing what is left in them.
    package func removeCgroups() {
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
                if case .log(let level, let text) = try message.read(HostEvent.self) { host.log(level, text: text) }
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
