import DeckBase
import DeckIsolation

extension RuntimeConfiguration {
    /// `"loopBudget": {"windowMs": 5000, "sharePercent": 20, "endAfterWindows": 3}`: each plugin's
    /// share of the loop thread.
    mutating func applyLoopBudget(_ value: JSONValue, path: String) throws(ConfigurationError) {
        guard case .object(let members) = value else { throw .invalid(path, "\"loopBudget\" must be an object") }
        for (key, value) in members {
            switch key {
            case "windowMs": loopBudget.windowMilliseconds = try Setting(value, "loopBudget.windowMs", 100...600_000, path, unit: "ms").integer()
            case "sharePercent": loopBudget.sharePercent = try Setting(value, "loopBudget.sharePercent", 1...100, path, unit: "%").integer()
            case "endAfterWindows": loopBudget.endAfterWindows = try Setting(value, "loopBudget.endAfterWindows", 1...100, path).integer()
            default: throw .invalid(path, "unknown key \"loopBudget.\(key)\" (known: windowMs, sharePercent, endAfterWindows)")
            }
        }
    }

    /// `"isolation": {"callTimeoutMs": 1000, "startTimeoutMs": 5000, "heartbeatTimeoutMs": 2000,
    /// "renderDeadlineMs": 10, "aheadFrames": 1, "memoryLimitMb": 1024, "maxMessageBytes": 25165824,
    /// "restartDelayMs": 250, "restartLimit": 3, "restartWindowS": 300, "uidBase": 61000, "sandbox": true, "zygote": true,
    /// "mediaFolders": ["/media/music"],
    /// "hostPath": "/usr/lib/deck/deck-plugin-host"}`.
    /// `"mode"` (process or inline) is where plugins the policy does not name run; it is returned,
    /// to replace the policy's default once the whole config is read. The policy's per-plugin modes stay.
    mutating func applyIsolation(_ value: JSONValue, path: String, resolve: (String) -> String) throws(ConfigurationError) -> IsolationPolicy.Mode? {
        guard case .object(let members) = value else { throw .invalid(path, "\"isolation\" must be an object") }
        var mode: IsolationPolicy.Mode?
        for (key, value) in members {
            switch key {
            case "mode":
                guard let name = value.stringValue, let chosen = IsolationPolicy.Mode(rawValue: name) else {
                    throw .invalid(path, "\"isolation.mode\" must be process or inline")
                }
                mode = chosen
            case "hostPath":
                guard let file = value.stringValue else { throw .invalid(path, "\"isolation.hostPath\" must be a file path") }
                isolation.hostPath = resolve(file)
            case "callTimeoutMs":
                isolation.callTimeoutMilliseconds = try Setting(value, "isolation.callTimeoutMs", 50...60_000, path, unit: "ms").integer()
            case "startTimeoutMs":
                isolation.startTimeoutMilliseconds = try Setting(value, "isolation.startTimeoutMs", 100...60_000, path, unit: "ms").integer()
            case "heartbeatTimeoutMs":
                isolation.heartbeatTimeoutMilliseconds = try Setting(value, "isolation.heartbeatTimeoutMs", 100...60_000, path, unit: "ms").integer()
            case "renderDeadlineMs":
                isolation.renderDeadlineMilliseconds = try Setting(value, "isolation.renderDeadlineMs", 0...100, path, unit: "ms").integer()
            case "aheadFrames":
                isolation.aheadFrames = try Setting(value, "isolation.aheadFrames", 1...16, path, unit: "frames").integer()
            case "memoryLimitMb":
                isolation.memoryLimitMegabytes = try Setting(value, "isolation.memoryLimitMb", 0...1 << 20, path, unit: "MiB").integer()
            case "maxMessageBytes":
                isolation.maxMessageBytes = try Setting(value, "isolation.maxMessageBytes", 1 << 20...1 << 30, path, unit: "bytes").integer()
            case "restartDelayMs":
                isolation.restartDelayMilliseconds = try Setting(value, "isolation.restartDelayMs", 0...60_000, path, unit: "ms").integer()
            case "restartLimit":
                isolation.restartLimit = try Setting(value, "isolation.restartLimit", 1...100, path).integer()
            case "restartWindowS":
                isolation.restartWindowSeconds = try Setting(value, "isolation.restartWindowS", 1...86_400, path, unit: "s").integer()
            case "uidBase":
                isolation.uidBase = try Setting(value, "isolation.uidBase", 0...2_000_000_000, path).integer()
            case "sandbox":
                guard let flag = value.boolValue else { throw .invalid(path, "\"isolation.sandbox\" must be true or false") }
                isolation.sandbox = flag
            case "zygote":
                guard let flag = value.boolValue else { throw .invalid(path, "\"isolation.zygote\" must be true or false") }
                isolation.zygote = flag
            case "mediaFolders":
                guard let list = value.arrayValue, let folders = Optional(list.compactMap(\.stringValue)), folders.count == list.count,
                      folders.allSatisfy({ !$0.isEmpty && !$0.contains(":") }) else {
                    throw .invalid(path, "\"isolation.mediaFolders\" must be an array of folder paths (without ':')")
                }
                isolation.mediaFolders = folders.map(resolve)
            default:
                throw .invalid(path, "unknown key \"isolation.\(key)\" (known: mode, hostPath, callTimeoutMs, startTimeoutMs, heartbeatTimeoutMs, "
                               + "renderDeadlineMs, aheadFrames, memoryLimitMb, maxMessageBytes, restartDelayMs, restartLimit, restartWindowS, uidBase, sandbox, zygote, mediaFolders)")
            }
        }
        return mode
    }
}
