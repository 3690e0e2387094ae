import DeckAudio
import DeckBase
import DeckControl
import DeckIsolation
import DeckPlugins

extension RuntimeConfiguration {
    /// The config's objects read through tables, by name; the rest are read in `apply`.
    static let sections: [ConfigSection] = [audioSection, encoderSection, httpSection, filesSection, controlSection,
                                            nowPlayingSection, stateSection, uiSection, isolationSection, loopBudgetSection]

    static let audioSection = ConfigSection("audio", [
        .integer("lateBoundMs", 1...10_000, unit: "ms") { $0.audio.lateBoundNanoseconds = $1 * 1_000_000 },
        .integer("packetBufferMs", \.audio.packetBufferMilliseconds, 100...60_000, unit: "ms"),
        .integer("declickMs", 1...50, unit: "ms") { $0.audio.declickMilliseconds = Double($1) },
        .integer("renderTimeoutMs", \.audio.renderTimeoutMilliseconds, 60...10_000, unit: "ms"),
    ])

    static let encoderSection = ConfigSection("encoder", [
        .integer("bitrate", \.audio.encoder.bitrate, 6_000...510_000, unit: "bits/s"),
        .integer("complexity", \.audio.encoder.complexity, 0...10),
        ConfigSection.Key(name: "frameMs") { configuration, value, context throws(ConfigurationError) in
            let milliseconds: Double
            switch value {
            case .int(let number): milliseconds = Double(number)
            case .double(let number): milliseconds = number
            default: throw context.invalid("must be a number")
            }
            do { configuration.audio.frameSize = try FrameSize(milliseconds: milliseconds) } catch {
                throw .invalid(context.file, "\(context.key): \(error)")
            }
        },
        ConfigSection.Key(name: "application") { configuration, value, context throws(ConfigurationError) in
            guard let name = value.stringValue, let application = EncoderSettings.Application(rawValue: name) else {
                throw .invalid(context.file, "\(context.key): " + AudioConfigurationError.application(PrintableText.excerpt(value.stringValue ?? value.encoded())).description)
            }
            configuration.audio.encoder.application = application
        },
        .flag("fec", \.audio.encoder.inbandFEC),
        .integer("packetLoss", \.audio.encoder.expectedPacketLoss, 0...100, unit: "%"),
        .flag("dtx", \.audio.encoder.dtx),
    ])

    static let httpSection = ConfigSection("http", [
        .integer("maxQueuedBytes", \.httpLimits.maxQueuedBytes, 16_384...(64 << 20), unit: "bytes"),
        .integer("maxHeadBytes", \.httpLimits.maxHeadBytes, 256...65_536, unit: "bytes"),
        .integer("headTimeoutMs", 100...60_000, unit: "ms") { $0.httpLimits.headTimeoutMilliseconds = UInt64($1) },
        .integer("maxClients", \.httpLimits.maxClients, 1...1_024),
        .flag("allowRemoteListeners", \.httpLimits.allowRemoteListeners),
    ])

    static let filesSection = ConfigSection("files", [
        .path("directory", "folder") { $0.files.directory = $1 },
        .flag("overwrite", \.files.overwrite),
    ])

    /// `control`, from `ControlLimits.fields`.
    static let controlSection = ConfigSection("control", ControlLimits.fields.map { field in
        let path = field.path
        return .integer(field.key, field.range, unit: field.unit) { $0.control[keyPath: path] = $1 }
    }) { configuration, file throws(ConfigurationError) in
        let control = configuration.control
        guard control.maxResponseBytes <= control.maxQueuedBytes / 2 else {
            throw .invalid(file, "control.maxResponseBytes (\(control.maxResponseBytes)) must be at most half of control.maxQueuedBytes (\(control.maxQueuedBytes))")
        }
    }

    static let nowPlayingSection = ConfigSection("nowPlaying", [
        .integer("maxStringBytes", \.nowPlaying.maxStringBytes, 64...65_536, unit: "bytes"),
        .integer("maxArtworkBytes", \.nowPlaying.maxArtworkBytes, 1_024...(16 << 20), unit: "bytes"),
        .integer("maxArtworkPixels", \.nowPlaying.maxArtworkPixels, (1 << 16)...(1 << 28), unit: "pixels"),
        .integer("maxQueueItems", \.nowPlaying.maxQueueItems, 1...100_000),
        .integer("commandTimeoutMs", \.nowPlaying.commandTimeoutMilliseconds, 10...60_000, unit: "ms"),
        .integer("coalesceMs", \.nowPlaying.coalesceMilliseconds, 0...10_000, unit: "ms"),
    ])

    static let stateSection = ConfigSection("state", [
        .path("path", "file") { $0.state.path = $1 },
        .flag("resumeOnStart", \.state.resumeOnStart),
        .integer("saveDelayMs", \.state.saveDelayMilliseconds, 0...60_000, unit: "ms"),
    ])

    /// `"ui": {"handlerTimeoutMs": 10000, "maxImageBytes": 1048576, "maxImagePixels": 16777216, "maxImageTotalBytes": 33554432}`.
    static let uiSection = ConfigSection("ui", [
        .integer("handlerTimeoutMs", \.ui.handlerTimeoutMilliseconds, 10...120_000, unit: "ms"),
        .integer("maxImageBytes", \.ui.maxImageBytes, 1_024...(16 << 20), unit: "bytes"),
        .integer("maxImagePixels", \.ui.maxImagePixels, (1 << 16)...(1 << 28), unit: "pixels"),
        .integer("maxImageTotalBytes", \.ui.maxImageTotalBytes, (1 << 20)...(1 << 30), unit: "bytes"),
    ])

    /// How plugins in host processes are run, watched and restarted. `mode` (process or inline) is
    /// where plugins the policy does not name run: it replaces the policy's default once the whole
    /// config is read, whatever order the keys come in; the policy's per-plugin modes stay.
    static let isolationSection = ConfigSection("isolation", [
        ConfigSection.Key(name: "mode") { configuration, value, context throws(ConfigurationError) in
            guard let name = value.stringValue, let chosen = IsolationPolicy.Mode(rawValue: name) else {
                throw context.invalid("must be process or inline")
            }
            configuration.isolationMode = chosen
        },
        .path("hostPath", "file") { $0.isolation.hostPath = $1 },
        .integer("callTimeoutMs", \.isolation.callTimeoutMilliseconds, 50...60_000, unit: "ms"),
        .integer("startTimeoutMs", \.isolation.startTimeoutMilliseconds, 100...60_000, unit: "ms"),
        .integer("heartbeatTimeoutMs", \.isolation.heartbeatTimeoutMilliseconds, 100...60_000, unit: "ms"),
        .integer("renderDeadlineMs", \.isolation.renderDeadlineMilliseconds, 0...100, unit: "ms"),
        .integer("aheadFrames", \.isolation.aheadFrames, 1...16, unit: "frames"),
        .integer("memoryLimitMb", \.isolation.memoryLimitMegabytes, 0...1 << 20, unit: "MiB"),
        ConfigSection.Key(name: "processLimit") { configuration, value, context throws(ConfigurationError) in
            let limit = try Setting(value, context.key, 0...1 << 20, context.file, unit: "processes").integer()
            guard limit == 0 || limit >= 32 else { throw context.invalid("is \(limit): 0 (no limit) or at least 32, since the host's own threads count") }
            configuration.isolation.processLimit = limit
        },
        .integer("maxMessageBytes", \.isolation.maxMessageBytes, 1 << 20...1 << 30, unit: "bytes"),
        .integer("restartDelayMs", \.isolation.restartDelayMilliseconds, 0...60_000, unit: "ms"),
        .integer("restartLimit", \.isolation.restartLimit, 1...100),
        .integer("restartWindowS", \.isolation.restartWindowSeconds, 1...86_400, unit: "s"),
        .integer("uidBase", \.isolation.uidBase, 0...2_000_000_000),
        .flag("sandbox", \.isolation.sandbox),
        .flag("zygote", \.isolation.zygote),
        ConfigSection.Key(name: "mediaFolders") { configuration, value, context throws(ConfigurationError) in
            guard let list = value.arrayValue, let folders = Optional(list.compactMap(\.stringValue)), folders.count == list.count,
                  folders.allSatisfy({ !$0.isEmpty && !$0.contains(":") }) else {
                throw context.invalid("must be an array of folder paths (without ':')")
            }
            configuration.isolation.mediaFolders = folders.map(context.resolve)
        },
    ])

    /// `"loopBudget": {"windowMs": 5000, "sharePercent": 20, "endAfterWindows": 3}`: each plugin's
    /// share of the loop thread.
    static let loopBudgetSection = ConfigSection("loopBudget", [
        .integer("windowMs", \.loopBudget.windowMilliseconds, 100...600_000, unit: "ms"),
        .integer("sharePercent", \.loopBudget.sharePercent, 1...100, unit: "%"),
        .integer("endAfterWindows", \.loopBudget.endAfterWindows, 1...100),
    ])
}
