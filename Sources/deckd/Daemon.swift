import DeckRuntime
import Glibc

/// The `deckd` process: options and config in, the runtime running until a signal, a clean exit.
enum Daemon {
    static func run(_ arguments: [String]) -> Int32 {
        StandardDescriptors.openClosedOnes()
        // A client that hangs up, or a closed stderr pipe, must cost a write error, never the process.
        signal(SIGPIPE, SIG_IGN)
        // SIGHUP and SIGUSR1 wait until their watchers start: by default either ends the process, so
        // a reload asked as deckd starts (or while it loads its plugins) would stop it instead.
        var early = sigset_t([SIGHUP, SIGUSR1])
        pthread_sigmask(SIG_BLOCK, &early, nil)
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(Array(arguments.dropFirst()))
        } catch {
            printError("deckd: \(error.message)\nTry 'deckd --help' for more information.")
            return 2
        }
        if options.showHelp || options.showVersion {
            print(options.showHelp ? DaemonOptions.usage : "deckd \(DeckVersion.string) (plugin ABI \(PluginABI.major).\(PluginABI.minor))")
            guard let reason = StandardDescriptors.flushOutput() else { return 0 }
            printError("deckd: cannot write the output: \(reason)")
            return 1
        }

        let configuration: RuntimeConfiguration
        var stateNotice: String?
        do {
            configuration = try makeConfiguration(options, stateNotice: &stateNotice)
        } catch {
            printError("deckd: \(error)\nEvery key, its range and unit: docs/integrator-guide.md; flags: 'deckd --help'.")
            return 2
        }
        if configuration.sinks.isEmpty, configuration.audio.durationSamples != nil {
            printError("deckd: --duration renders into the sinks, and there are none (\"sinks\": [] in the config); give --sink URI")
            return 2
        }

        let tcp: ControlServer.TCPListener?
        do {
            tcp = try makeTCPListener(options)
        } catch {
            printError("deckd: \(error.message)\nTry 'deckd --help' for more information.")
            return 2
        }
        if options.checkConfig { return check(configuration, options) }
        let logger = makeLogger(options, level: configuration.logLevel)
        if let stateNotice { logger.warning("state", stateNotice) }
        if configuration.sinks.isEmpty { logger.warning("sinks", "no sinks: the audio goes nowhere until a client adds one (sinks.add)") }
        if configuration.audio.freewheel, configuration.audio.durationSamples == nil {
            logger.warning("audio", "--freewheel without --duration: the output renders as fast as the machine allows, "
                           + "keeping a core busy and the sinks filling, until deckd is stopped")
        }
        IsolationSettings.hideFromPlugins()
        do {
            try serve(configuration: configuration, play: options.play, socket: options.socketPath ?? UnixSocket.defaultControlPath,
                      tcp: tcp, logger: logger)
            return 0
        } catch {
            logger.error("deckd", "\(error)")
            return 1
        }
    }

    /// Text lines on stderr, or records with fields in the journal (asked for, or stderr is the journal).
    static func makeLogger(_ options: DaemonOptions, level: LogLevel) -> Logger {
        let journal = options.logTarget == .journal || (options.logTarget == .auto && JournalWriter.standardErrorIsJournal)
        guard journal, let writer = JournalWriter(socketPath: options.journalSocket, identifier: "deckd") else {
            return Logger(level: level)
        }
        return Logger(level: level, sink: writer.sink)
    }

    static let defaultSink = "http://127.0.0.1:8000/stream.opus"

    /// Defaults, then the config file, then the flags; `stateNotice` says why no state is kept when
    /// the default state file cannot be had.
    static func makeConfiguration(_ options: DaemonOptions, stateNotice: inout String?) throws(ConfigurationError) -> RuntimeConfiguration {
        var configuration = RuntimeConfiguration()
        configuration.pluginDirectories = [defaultPluginDirectory()]
        configuration.sinks = [defaultSink]
        if let file = options.configFile { try configuration.apply(configFile: file) }
        if !options.pluginDirectories.isEmpty { configuration.pluginDirectories = options.pluginDirectories }
        if !options.sinks.isEmpty { configuration.sinks = options.sinks }
        if options.freewheel { configuration.audio.freewheel = true }
        if let seconds = options.durationSeconds {
            configuration.audio.durationSamples = Int((seconds * Double(AudioFormat.sampleRate)).rounded())
        }
        if let policy = options.policyFile { try configuration.loadPolicy(policy) }
        if let level = options.logLevel { configuration.logLevel = level }
        if options.insecurePlugins { configuration.allowInsecurePlugins = true }
        if let mode = options.isolation { configuration.policy.isolation.defaultMode = mode }
        if let directory = options.outputDirectory { configuration.files.directory = directory }
        if options.overwriteFiles { configuration.files.overwrite = true }
        if options.resume { configuration.state.resumeOnStart = true }
        if options.mpris { configuration.mpris = true }
        if options.watch { configuration.watchPlugins = true }
        if let simulator = options.simulator { configuration.simulator = simulator }
        switch options.statePath {
        case "none"?: configuration.state.path = nil
        case let path?: configuration.state.path = AbsolutePath.resolve(path)
        case nil where configuration.state.path == nil && configuration.audio.durationSamples == nil && !options.checkConfig:
            switch defaultStatePath() {
            case .success(let path): configuration.state.path = path
            case .failure(let missing):
                stateNotice = "no state is kept: \(missing.reason); the volumes and the last source start afresh at each start "
                    + "(give --state FILE, or --state none to say so)"
            }
        case nil: break
        }
        if configuration.dataDirectory == nil, let state = configuration.state.path, let slash = state.lastIndex(of: "/") {
            configuration.dataDirectory = String(state[..<slash]) + "/apps"
        }
        if let conflict = configuration.mediaFolderConflict() { throw .invalid(options.configFile ?? "the configuration", conflict) }
        return configuration
    }

    /// As root `/var/lib/deck/state.json` (its folder 0711: plugins' hosts, which run as other
    /// uids, pass through it to their data folders); else `$XDG_STATE_HOME/deck/state.json`, else
    /// `~/.local/state/deck/state.json` (0700). Folders are made when missing; why not when there
    /// is no home or a folder cannot be made.
    static func defaultStatePath() -> Result<String, DefaultStateMissing> {
        let base: String
        if let state = getenv("XDG_STATE_HOME").map({ String(cString: $0) }), state.hasPrefix("/") {
            base = state
        } else if geteuid() == 0 {
            base = "/var/lib"
        } else if let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") {
            base = home + "/.local/state"
        } else {
            return .failure(DefaultStateMissing(reason: "neither XDG_STATE_HOME nor HOME is an absolute path"))
        }
        var folder = ""
        for part in (base + "/deck").split(separator: "/") {
            folder += "/\(part)"
            if mkdir(folder, geteuid() == 0 ? 0o711 : 0o700) != 0 && errno != EEXIST {
                return .failure(DefaultStateMissing(reason: "cannot make \(folder) (\(String(cString: strerror(errno))))"))
            }
        }
        return .success(folder + "/state.json")
    }

    /// Why the default state file cannot be had.
    struct DefaultStateMissing: Error {
        let reason: String
    }

    /// The TCP listener asked for: a loopback address unless remote access is explicit, and a token.
    static func makeTCPListener(_ options: DaemonOptions) throws(UsageError) -> ControlServer.TCPListener? {
        guard let text = options.tcp, let tokenFile = options.tokenFile else { return nil }
        let address: SocketAddress
        do { address = try SocketAddress(hostPort: text) } catch {
            throw UsageError("--tcp must be an IP address and a port from 0 to 65535 (127.0.0.1:7700, [::1]:7700), not '\(text)'")
        }
        guard address.isLoopback || options.tcpAllowRemote else {
            throw UsageError("--tcp \(text) is not a loopback address; add --tcp-allow-remote to expose the control API")
        }
        return ControlServer.TCPListener(address: address, token: try readToken(tokenFile))
    }

    /// The token file's first line, without a byte order mark or spaces around it. Like ssh with a
    /// private key, a file another user owns or that group or others can read is refused, naming
    /// the fix; so is a token no client could send (not text).
    static func readToken(_ path: String) throws(UsageError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw UsageError("cannot read --token-file \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw UsageError("--token-file \(path) is not a regular file") }
        guard info.st_uid == geteuid() || info.st_uid == 0 else {
            throw UsageError("--token-file \(path) is owned by uid \(info.st_uid), not by you (uid \(geteuid())) or root")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw UsageError("--token-file \(path) is accessible by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); "
                             + "run 'chmod 600 \(path)'")
        }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        var line = bytes[..<max(count, 0)].prefix { $0 != 10 }
        if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }  // as a Windows editor saves it
        guard let firstLine = String(validating: line, as: UTF8.self),
              !firstLine.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !$0.properties.isWhitespace }) else {
            throw UsageError("the token in \(path) is not text a client could send; make one with 'openssl rand -hex 32 > \(path)'")
        }
        let token = String(firstLine.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        guard token.count >= 16 else { throw UsageError("the token in \(path) must be at least 16 characters") }
        return token
    }

    /// Runs until SIGINT, SIGTERM or the end of `--duration`, then ends the stream cleanly and
    /// deactivates and destroys every plugin in reverse order.
    private static func serve(configuration: RuntimeConfiguration, play: (pluginID: String, item: String?)?,
                              socket: String, tcp: ControlServer.TCPListener?, logger: Logger) throws(DaemonError) {
        // SIGTERM and SIGINT go to the shutdown guard's thread only: blocked here, before any other thread exists.
        ShutdownGuard.blockSignals()
        let runtime: Runtime
        do { runtime = try Runtime(configuration: configuration, logger: logger) } catch { throw .runtime(error) }
        // Before any host starts: a plugin's orphans become deckd's children, and so stay known as plugins'.
        if !AdoptedOrphans.adopt() { logger.warning("isolation", "cannot adopt plugins' orphans (PR_SET_CHILD_SUBREAPER): \(String(cString: strerror(errno)))") }
        // Every host was ended by then; what plugins left (an inline plugin's setsid children, and
        // while one was loaded, a crashed host's orphans) ends with deckd.
        defer {
            let ended = AdoptedOrphans.endAll()
            if ended > 0 { logger.info("isolation", "ended \(ended) process(es) that plugins left behind") }
        }
        let plugins = pluginProcesses(configuration, runtime)
        runtime.pluginProcesses = { plugins() }
        var stopRequested: (() -> Void)?
        let stopDoorbell: AsyncDoorbell
        do { stopDoorbell = try AsyncDoorbell(loop: runtime.loop) { stopRequested?() } } catch { throw .runtime(.loop(error)) }
        let shutdownGuard = ShutdownGuard(watch: runtime.plugins.callWatch, logger: logger, requestStop: stopDoorbell.ringer)
        shutdownGuard.start()
        defer { shutdownGuard.finish() }
        let control: ControlServer
        do {
            control = try ControlServer(path: socket, tcp: tcp, loop: runtime.loop, dispatcher: runtime.makeDispatcher(),
                                        events: runtime.events, logger: logger, limits: configuration.control,
                                        pluginProcesses: plugins)
        } catch {
            throw .control(error)
        }
        shutdownGuard.removesOnGivingUp(socket)
        logger.info("control", "JSON-RPC on \(socket)" + (control.tcpAddress.map { " and tcp \($0) (token required)" } ?? ""))
        let simulator: SimulatorServer?
        do {
            simulator = try makeSimulator(configuration, runtime: runtime, dispatcher: control.dispatcher, plugins: plugins, logger: logger)
        } catch {
            control.close()
            runtime.shutdown()
            throw .simulator(error)
        }
        if configuration.allowInsecurePlugins {
            logger.warning("deckd", "--insecure-plugins: bundle ownership and permission checks are off")
        }
        do {
            try runtime.start()
        } catch {
            simulator?.close()
            control.close()
            runtime.shutdown()
            throw .runtime(error)
        }
        if let play {
            // A render job (--duration) that cannot play would run for ever or make silence: fail it.
            let problem: String?
            do {
                let outcome = try runtime.focus.play(pluginID: play.pluginID, item: play.item)
                if case .silent(let reason) = outcome { problem = reason } else { problem = nil }
            } catch {
                problem = error.message
            }
            if let problem {
                guard configuration.audio.durationSamples == nil else {
                    simulator?.close()
                    control.close()
                    runtime.shutdown()
                    throw .play(problem)
                }
                logger.error("deckd", "--play: \(problem)")
            }
        } else if let samples = configuration.audio.durationSamples, !configuration.state.resumeOnStart {
            logger.info("deckd", "--duration counts audio made: deckd stops after \(Double(samples) / Double(AudioFormat.sampleRate)) s of it, "
                        + "once something plays (--play, --resume or a client)")
        }

        let handled = [SIGHUP, SIGUSR1]
        var watchers: [SignalWatcher] = []
        let notifier = ServiceNotifier(runtime: runtime)
        // A process becomes deckd's child only when its parent ends (a host, an orphan adopted
        // before) or when a plugin's host starts it as a sibling: swept when a child of deckd
        // ends, and at the latest when that plugin's host does, so an idle deckd wakes for nothing.
        let sweep = {
            AdoptedOrphans.reap()
            // An inline plugin's own children are deckd's too; with none loaded, none is a plugin's to keep.
            guard runtime.plugins.allSatisfy({ $0.processID != nil }) else { return }
            let ended = AdoptedOrphans.killRunning()
            if ended > 0 { logger.info("isolation", "ended \(ended) process(es) that plugins' ended hosts left behind") }
        }
        let reaper: SignalWatcher
        do {
            reaper = try SignalWatcher(loop: runtime.loop)
            try reaper.start(signal: SIGCHLD) { _ in sweep() }
        } catch {
            throw .runtime(.loop(error))
        }
        sweep()
        let stop = {
            notifier.stopping()
            reaper.close()
            simulator?.close()
            control.close()
            runtime.shutdown(pluginsWithinMilliseconds: ShutdownGuard.pluginMilliseconds)
            watchers.forEach { $0.close() }
            stopDoorbell.close()
        }
        stopRequested = stop
        var durationReached = false
        runtime.onOutputFinished = {
            logger.info("deckd", "--duration reached, shutting down")
            durationReached = true
            stop()
        }
        do {
            for number in handled {
                let watcher = try SignalWatcher(loop: runtime.loop)
                try watcher.start(signal: number) { number in
                    switch number {
                    case SIGHUP:
                        logger.info("deckd", "SIGHUP received: rescanning the plugin folders for new bundles")
                        notifier.reloading()
                        runtime.rescanPlugins()
                        notifier.reloaded()
                    default:
                        logger.info("deckd", "SIGUSR1 received: \(runtime.statusLine)")
                    }
                }
                watchers.append(watcher)
            }
        } catch {
            throw .runtime(.loop(error))
        }
        // Heard from now on, also when a parent spawned us with them blocked; one that came while
        // they were blocked is handled as the loop starts (TERM and INT reach the guard).
        var unblocked = sigset_t(handled + [SIGCHLD])
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        logger.info("deckd", "ready: \(runtime.plugins.count) plugin(s) loaded, \(runtime.plugins.loadFailures.count) refused")
        do { try notifier.ready() } catch { throw .runtime(.loop(error)) }
        runtime.loop.run()
        logger.info("deckd", "stopped")
        // The loop ran until the last write landed, so every sink's errors are known by now.
        if durationReached && runtime.sinks.outputLost {
            throw .runtime(.noOutput("every sink failed during the run; see the errors above"))
        }
        if !runtime.abandonedPlugins.isEmpty { throw .abandoned(runtime.abandonedPlugins) }
    }

    /// The simulator asked for (`--simulator`, `simulator`), serving on the loop beside the control socket.
    private static func makeSimulator(_ configuration: RuntimeConfiguration, runtime: Runtime, dispatcher: RPCDispatcher,
                                      plugins: @escaping () -> PluginProcesses, logger: Logger) throws(SimulatorError) -> SimulatorServer? {
        guard let text = configuration.simulator else { return nil }
        let address: SocketAddress
        do { address = try SocketAddress(hostPort: text) } catch { throw .cannotListen(text, error.description) }
        let page = try SimulatorPage(candidates: SimulatorPage.defaultCandidates(executableFolder: executableFolder()))
        let server = try SimulatorServer(address: address, page: page, loop: runtime.loop, dispatcher: dispatcher, events: runtime.events,
                                         logger: logger, maxBodyBytes: configuration.control.maxMessageBytes,
                                         pluginProcesses: plugins)
        logger.info("simulator", "head unit simulator on \(server.url) (page from \(page.folder))")
        return server
    }

    /// What marks a plugin's process for deckd's servers and sinks: a host's uid, deckd's ancestry
    /// (it starts no other processes, and adopts plugins' orphans), or the hosts' cgroups once the
    /// first host made them.
    private static func pluginProcesses(_ configuration: RuntimeConfiguration, _ runtime: Runtime) -> () -> PluginProcesses {
        let uids = configuration.isolation.hostUIDs
        return { [weak runtime] in PluginProcesses(uids: uids, cgroups: runtime?.codeLoader.cgroupFolder) }
    }

    /// The first-party bundles installed next to the executable: `<dir of deckd>/plugins`.
    static func defaultPluginDirectory() -> String { executableFolder() + "/plugins" }

    /// The folder deckd's executable is in ("." when /proc does not say).
    static func executableFolder() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "." }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
    }

    static func printError(_ message: String) {
        _ = (message + "\n").utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}

/// Why deckd could not run.
enum DaemonError: Error, CustomStringConvertible {
    case runtime(RuntimeError)
    case control(ControlServerError)
    case simulator(SimulatorError)
    case play(String)
    /// The run ended cleanly, but these plugins hung and were given up.
    case abandoned([String])

    var description: String {
        switch self {
        case .abandoned(let ids): "shut down cleanly, but gave up on hung plugin(s): \(ids.joined(separator: ", "))"
        case .runtime(let error): error.description
        case .control(let error): error.description
        case .simulator(let error): error.description
        case .play(let reason): "--play: \(reason)"
        }
    }
}
