import DeckRuntime
import Glibc

/// The `deckd` process: options and config in, the runtime running until a signal, a clean exit.
enum Daemon {
    static func run(_ arguments: [String]) -> Int32 {
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(Array(arguments.dropFirst()))
        } catch {
            printError("deckd: \(error.message)\nTry 'deckd --help' for more information.")
            return 2
        }
        if options.showHelp {
            print(DaemonOptions.usage)
            return 0
        }
        if options.showVersion {
            print("deckd \(DeckVersion.string) (plugin ABI \(PluginABI.major).\(PluginABI.minor))")
            return 0
        }

        let configuration: RuntimeConfiguration
        do {
            configuration = try makeConfiguration(options)
        } catch {
            printError("deckd: \(error)")
            return 2
        }

        let tcp: ControlServer.TCPListener?
        do {
            tcp = try makeTCPListener(options)
        } catch {
            printError("deckd: \(error.message)\nTry 'deckd --help' for more information.")
            return 2
        }
        let logger = Logger(level: configuration.logLevel)
        do {
            try serve(configuration: configuration, play: options.play, socket: options.socketPath ?? ControlServer.defaultPath(),
                      tcp: tcp, logger: logger)
            return 0
        } catch {
            logger.error("deckd", "\(error)")
            return 1
        }
    }

    static let defaultSink = "http://127.0.0.1:8000/stream.opus"

    /// Defaults, then the config file, then the flags.
    static func makeConfiguration(_ options: DaemonOptions) throws(ConfigurationError) -> RuntimeConfiguration {
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
        return configuration
    }

    /// Runs until SIGINT, SIGTERM or the end of `--duration`, then ends the stream cleanly and
    /// deactivates and destroys every plugin in reverse order.
    /// The TCP listener asked for: a loopback address unless remote access is explicit, and a token.
    static func makeTCPListener(_ options: DaemonOptions) throws(UsageError) -> ControlServer.TCPListener? {
        guard let text = options.tcp, let tokenFile = options.tokenFile else { return nil }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
            throw UsageError("--tcp must be HOST:PORT, not '\(text)'")
        }
        let host = String(text[..<colon].drop { $0 == "[" }.reversed().drop { $0 == "]" }.reversed())
        let address: SocketAddress
        do { address = try SocketAddress(host: host, port: port) } catch { throw UsageError("--tcp \(text): \(error)") }
        guard address.isLoopback || options.tcpAllowRemote else {
            throw UsageError("--tcp \(text) is not a loopback address; add --tcp-allow-remote to expose the control API")
        }
        guard let file = fopen(tokenFile, "r") else { throw UsageError("cannot read --token-file \(tokenFile)") }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 4096)
        let firstLine = fgets(&line, Int32(line.count), file).map { String(cString: $0) } ?? ""
        let token = String(firstLine.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        guard token.count >= 16 else { throw UsageError("the token in \(tokenFile) must be at least 16 characters") }
        return ControlServer.TCPListener(address: address, token: token)
    }

    private static func serve(configuration: RuntimeConfiguration, play: (pluginID: String, item: String?)?,
                              socket: String, tcp: ControlServer.TCPListener?, logger: Logger) throws(DaemonError) {
        let runtime: Runtime
        do { runtime = try Runtime(configuration: configuration, logger: logger) } catch { throw .runtime(error) }
        let control: ControlServer
        do {
            control = try ControlServer(path: socket, tcp: tcp, loop: runtime.loop, dispatcher: runtime.makeDispatcher(), logger: logger)
        } catch {
            throw .control(error)
        }
        runtime.onEvent = { topic, params in control.publish(topic, params) }
        logger.info("control", "JSON-RPC on \(socket)" + (control.tcpAddress.map { " and tcp \($0) (token required)" } ?? ""))
        if configuration.allowInsecurePlugins {
            logger.warning("deckd", "--insecure-plugins: bundle ownership and permission checks are off")
        }
        runtime.loadPlugins()
        runtime.activatePlugins()
        if let play {
            do { try runtime.play(pluginID: play.pluginID, item: play.item) } catch { logger.error("deckd", "--play: \(error.message)") }
        }
        do { try runtime.startOutput() } catch { throw .runtime(error) }

        // A parent may have spawned us with these blocked; we must hear them to shut down cleanly.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
        var watchers: [SignalWatcher] = []
        let stop = {
            control.close()
            runtime.shutdown()
            watchers.forEach { $0.close() }
        }
        runtime.onOutputFinished = {
            logger.info("deckd", "--duration reached, shutting down")
            stop()
        }
        do {
            for signal in [SIGINT, SIGTERM] {
                let watcher = try SignalWatcher(loop: runtime.loop)
                try watcher.start(signal: signal) { number in
                    logger.info("deckd", "\(number == SIGINT ? "SIGINT" : "SIGTERM") received, shutting down")
                    stop()
                }
                watchers.append(watcher)
            }
        } catch {
            throw .runtime(.loop(error))
        }
        logger.info("deckd", "ready: \(runtime.plugins.count) plugin(s) loaded, \(runtime.loadFailures.count) refused")
        runtime.loop.run()
        logger.info("deckd", "stopped")
    }

    /// The first-party bundles installed next to the executable: `<dir of deckd>/plugins`.
    static func defaultPluginDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "plugins" }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) + "/plugins"
    }

    private static func printError(_ message: String) {
        _ = (message + "\n").utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}

/// Why deckd could not run.
enum DaemonError: Error, CustomStringConvertible {
    case runtime(RuntimeError)
    case control(ControlServerError)

    var description: String {
        switch self {
        case .runtime(let error): error.description
        case .control(let error): error.description
        }
    }
}
