import DeckBase

/// The command line the runtime starts `deck-plugin-host` with (`--name value` pairs, all given).
struct HostArguments {
    var library = "", bundle = "", id = ""
    var entitlements: Set<Entitlement> = []
    var frames = 960, slots = 2
    var memoryMegabytes = 0
    /// RLIMIT_NPROC on a uid of its own; 0: none.
    var processLimit = 0
    var heartbeatMilliseconds = 500
    var maxMessageBytes = 32 << 20
    var logLevel = LogLevel.info
    /// The uid and gid the host takes before the plugin's code loads; 0: keep the runtime's.
    var uid: UInt32 = 0
    /// The SCHED_FIFO priority of its render thread (the output thread's); 0: normal scheduling.
    var realtimePriority: Int32 = 0
    /// What its sandbox lets it reach, and the folders that come with them ("" : none).
    var permissions: Set<Permission> = []
    var dataFolder = "", mediaFolders: [String] = []
    /// The integrator's settings for the plugin, as JSON object text.
    var settings = "{}"
    /// Whether the output renders as fast as it can (`is_freewheeling`).
    var freewheeling = false
    /// The cgroup it joins first thing ("": none).
    var cgroup = ""
    /// Whether it restricts itself (Landlock, a network namespace) before the plugin's code loads.
    var sandbox = true

    init() {}

    init(_ commandLine: [String]) throws(HostArgumentError) {
        var values: [String: String] = [:]
        var index = 0
        while index < commandLine.count {
            let name = commandLine[index]
            guard name.hasPrefix("--"), index + 1 < commandLine.count else { throw .malformed(name) }
            values[String(name.dropFirst(2))] = commandLine[index + 1]
            index += 2
        }
        func text(_ name: String) throws(HostArgumentError) -> String {
            guard let value = values.removeValue(forKey: name) else { throw .missing(name) }
            return value
        }
        func number(_ name: String, _ range: ClosedRange<Int>) throws(HostArgumentError) -> Int {
            guard let value = Int(try text(name)), range.contains(value) else { throw .malformed(name) }
            return value
        }
        library = try text("library")
        bundle = try text("bundle")
        id = try text("id")
        let names = try text("entitlements")
        for name in names.split(separator: ",") {
            guard let entitlement = Entitlement(rawValue: String(name)) else { throw .malformed("entitlements") }
            entitlements.insert(entitlement)
        }
        frames = try number("frames", 1...48_000)
        slots = try number("slots", 1...64)
        memoryMegabytes = try number("memory-mb", 0...1 << 20)
        processLimit = try number("process-limit", 0...1 << 20)
        heartbeatMilliseconds = try number("heartbeat-ms", 10...60_000)
        maxMessageBytes = try number("max-message-bytes", 1 << 16...1 << 30)
        guard let level = LogLevel(name: try text("log-level")) else { throw .malformed("log-level") }
        logLevel = level
        uid = UInt32(try number("uid", 0...Int(Int32.max)))
        realtimePriority = Int32(try number("rt-priority", 0...99))
        for name in try text("permissions").split(separator: ",") {
            guard let permission = Permission(rawValue: String(name)) else { throw .malformed("permissions") }
            permissions.insert(permission)
        }
        dataFolder = try text("data")
        mediaFolders = try text("media").split(separator: ":").map(String.init)
        settings = try text("settings")
        freewheeling = try number("freewheel", 0...1) == 1
        cgroup = try text("cgroup")
        sandbox = try number("sandbox", 0...1) == 1
        if let unknown = values.keys.first { throw .malformed("--\(unknown)") }
    }

    /// The command line for these arguments.
    var commandLine: [String] {
        ["--library", library, "--bundle", bundle, "--id", id,
         "--entitlements", entitlements.map(\.rawValue).sorted().joined(separator: ","),
         "--frames", "\(frames)", "--slots", "\(slots)", "--memory-mb", "\(memoryMegabytes)", "--process-limit", "\(processLimit)",
         "--heartbeat-ms", "\(heartbeatMilliseconds)", "--max-message-bytes", "\(maxMessageBytes)", "--log-level", logLevel.name,
         "--uid", "\(uid)", "--rt-priority", "\(realtimePriority)",
         "--permissions", permissions.map(\.rawValue).sorted().joined(separator: ","), "--data", dataFolder,
         "--media", mediaFolders.joined(separator: ":"), "--settings", settings, "--freewheel", freewheeling ? "1" : "0", "--cgroup", cgroup, "--sandbox", sandbox ? "1" : "0"]
    }
}

enum HostArgumentError: Error, CustomStringConvertible {
    case missing(String)
    case malformed(String)

    var description: String {
        switch self {
        case .missing(let name): "missing --\(name)"
        case .malformed(let name): "bad argument \(name)"
        }
    }
}
