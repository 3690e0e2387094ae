import Foundation
import Synchronization
import DeckRuntime

/// Where the repository, the build products and the C fixtures are.
public enum Paths {
    public static let repoRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The build products folder: the test binary lives there.
    public static let binDir: String = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        return (exe as NSString).deletingLastPathComponent
    }()

    /// Tone and Prompts alone, copied once per test process: the daemon's own tests stay clear of
    /// what Radio and Library do at start (their scans, their notifications, their threads).
    public static let corePlugins: String = {
        let folder = NSTemporaryDirectory() + "deck-core-plugins-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["Tone", "Prompts"] {
            try? FileManager.default.copyItem(atPath: binDir + "/plugins/\(name).deckplugin", toPath: folder + "/\(name).deckplugin")
        }
        _ = try? runProgram("/bin/chmod", ["-R", "go-w,o+rX", folder])
        return folder
    }()

    public static let sdkInclude = repoRoot + "/sdk/include"
    public static let fixtureSource = repoRoot + "/Tests/Fixtures/fixture-plugin.c"
    public static let toneBundle = binDir + "/plugins/Tone.deckplugin"
    public static let helloBundle = repoRoot + "/examples/plugin-c/build/Hello.deckplugin"
    /// The example audio app with a screen, a content tree and now playing (examples/ui-c).
    public static let stationsBundle = repoRoot + "/examples/ui-c/build/Stations.deckplugin"
    /// examples/plugin-swift, built by `make plugin-swift` with SwiftPM against an installed SDK.
    public static let metronomeBundle = repoRoot + "/examples/plugin-swift/build/Metronome.deckplugin"
}

/// A fresh folder, removed when the value goes away.
public final class TemporaryDirectory {
    public let path: String

    public init() {
        path = NSTemporaryDirectory() + "deck-test-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o755)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

public struct CommandFailure: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// Builds C fixture plugins from Tests/Fixtures/fixture-plugin.c with plain `cc`.
public enum Fixture {
    /// Libraries compiled by this test process, by source text and defines: each is built once
    /// and copied into every bundle that asks for it (a compile costs ~0.2 s of CPU).
    private static let built = Mutex<[String: String]>([:])
    private static let cacheFolder: String = {
        // mkdtemp's template: its last six characters are replaced.
        var template = Array((NSTemporaryDirectory() + "/deck-fixtures-" + String(repeating: "X", count: 6)).utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }).map({ String(cString: $0) }) else {
            return NSTemporaryDirectory()
        }
        atexit { try? FileManager.default.removeItem(atPath: Fixture.cacheFolder) }
        return made
    }()

    /// The library built from `source` with `defines`, compiled now unless built before.
    private static func compiled(_ source: String, defines: [String], libraries: [String]) throws -> String {
        let text = try String(contentsOfFile: source, encoding: .utf8)
        let key = ([source, text] + defines + libraries).joined(separator: "\u{0}")
        if let path = built.withLock({ $0[key] }) { return path }
        let path = "\(cacheFolder)/\(UUID().uuidString).so"
        let (status, output) = try runProgram("/usr/bin/cc", ["-std=c11", "-Wall", "-Wextra", "-shared", "-fPIC",
                                                             "-I", Paths.sdkInclude] + defines.map { "-D\($0)" }
                                              + ["-o", path, source, "-lpthread", "-lm"] + libraries.map { "-l\($0)" })
        guard status == 0 else { throw CommandFailure(description: "cc failed: \(output)") }
        built.withLock { $0[key] = path }
        return path
    }

    public static var defaultManifest: [String: Any] { [
        "id": "org.deck.test.fixture", "name": "Fixture", "version": "1.0.0", "abi": 1,
        "library": "libfixture.so", "entitlements": ["audio"],
    ] }

    /// A fixture bundle named `name` whose descriptor and manifest carry `id` and `entitlements`.
    @discardableResult
    public static func app(in dir: String, _ name: String, id: String, entitlements: [String] = ["audio"],
                           defines: [String] = []) throws -> String {
        try bundle(in: dir, name: name, defines: ["FIXTURE_ID=\"\(id)\""] + defines, manifest: ["id": id, "entitlements": entitlements])
    }

    /// Compiles the fixture with `defines`, linked with `libraries`, into `<dir>/<name>.deckplugin` next to a manifest.
    /// `manifest` replaces keys of the default manifest (NSNull removes one); `manifestText` replaces it whole.
    @discardableResult
    public static func bundle(in dir: String, name: String = "Fixture", defines: [String] = [],
                       manifest: [String: Any] = [:], manifestText: String? = nil,
                       library: String = "libfixture.so", source: String = Paths.fixtureSource, libraries: [String] = []) throws -> String {
        let bundle = "\(dir)/\(name).deckplugin"
        try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
        chmod(bundle, 0o755)
        try FileManager.default.copyItem(atPath: try compiled(source, defines: defines, libraries: libraries), toPath: "\(bundle)/\(library)")
        var fields = defaultManifest
        for (key, value) in manifest { fields[key] = value is NSNull ? nil : value }
        let text = try manifestText ?? String(decoding: JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
        try text.write(toFile: "\(bundle)/manifest.json", atomically: true, encoding: .utf8)
        return bundle
    }
}

/// Keeps every log record for assertions.
public final class LogCapture: Sendable {
    private final class Records: Sendable {
        let list = Mutex<[LogRecord]>([])
    }

    private let records = Records()
    public let logger: Logger

    public init(level: LogLevel = .debug) {
        let records = self.records
        logger = Logger(level: level) { record in records.list.withLock { $0.append(record) } }
    }

    public var all: [LogRecord] { records.list.withLock { $0 } }

    public func messages(from source: String) -> [String] { all.filter { $0.source == source }.map(\.message) }

    public func contains(_ level: LogLevel, _ fragment: String) -> Bool {
        all.contains { $0.level == level && $0.message.contains(fragment) }
    }
}

/// Where the tests run plugins the policy does not name: in host processes (the default), or inline
/// with `DECK_TEST_ISOLATION=inline`; `make test` runs the suites that load plugins both ways.
public enum TestIsolation {
    public static let mode: IsolationPolicy.Mode =
        ProcessInfo.processInfo.environment["DECK_TEST_ISOLATION"].flatMap(IsolationPolicy.Mode.init) ?? .process
}

extension RuntimeConfiguration {
    /// A default configuration whose plugins run as `TestIsolation.mode` says, or as `isolation`.
    public static func forTests(isolation: IsolationPolicy.Mode? = nil) -> RuntimeConfiguration {
        var configuration = RuntimeConfiguration()
        configuration.policy.isolation.defaultMode = isolation ?? TestIsolation.mode
        return configuration
    }
}

public func makeRuntime(policy: EntitlementPolicy = .grantAll, insecure: Bool = false, isolation: IsolationPolicy.Mode? = nil,
                        log: LogCapture) throws -> Runtime {
    var configuration = RuntimeConfiguration()
    configuration.policy = policy
    configuration.policy.isolation.defaultMode = isolation ?? TestIsolation.mode
    configuration.allowInsecurePlugins = insecure
    return try Runtime(configuration: configuration, logger: log.logger)
}

/// Turns the loop without blocking until `condition` holds or `seconds` pass.
@discardableResult
public func turnLoop(_ loop: EventLoop, seconds: Double = 5, until condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        loop.runNoWait()
        usleep(1000)
    }
    return true
}

extension RPCDispatcher {
    /// Calls `method` with `params` (JSON text) on `connection` (a fresh one by default) and
    /// returns the whole answer.
    public func answer(_ method: String, _ params: String = "{}", connection: RPCConnection = RPCConnection { _ in }) throws -> JSONValue {
        let request = #"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params),"id":1}"#
        guard let text = handle(request, connection: connection) else {
            throw CommandFailure(description: "\(method) was not answered")
        }
        return try JSONValue.parse(text)
    }
}

/// Polls `condition` every 10 ms for up to `seconds`.
public func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        usleep(10_000)
    }
    return true
}
