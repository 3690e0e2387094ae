import DeckBase
import CProcess
import DeckRuntime
import Foundation

/// A `deckd` started as a subprocess, its log captured to a file for assertions. Unless a test
/// names its sinks, it streams to an HTTP sink on a free port: never the default 8000, so the
/// tests and a running deckd never collide.
public final class DeckdProcess {
    public let process: ChildProgram
    private let logPath: String
    private let dir = TemporaryDirectory()

    /// `launcher` runs deckd through another program (e.g. a shell that lowers a limit first),
    /// which gets deckd's path and arguments after its own.
    public init(_ arguments: [String], launcher: [String] = [], environment: [String: String] = [:]) throws {
        logPath = dir.path + "/deckd.log"
        let deckd = Paths.binDir + "/deckd"
        let full = arguments + (arguments.contains("--sink") ? [] : ["--sink", "http://127.0.0.1:0/stream.opus"])
            + (arguments.contains("--isolation") ? [] : ["--isolation", TestIsolation.mode.rawValue])
        // Each daemon gets its own control socket ($XDG_RUNTIME_DIR/deck.sock) and its own state
        // file ($XDG_STATE_HOME/deck/state.json) in its own folder.
        process = try ChildProgram(launcher.first ?? deckd, launcher.isEmpty ? full : Array(launcher.dropFirst()) + [deckd] + full,
                                   environment: ["XDG_RUNTIME_DIR": dir.path, "XDG_STATE_HOME": dir.path].merging(environment) { _, new in new },
                                   output: .file(logPath))
    }

    /// deckd loading one fixture app (built with `defines`) from `dir`/plugins, keeping no state and
    /// recording to `dir`/out.opus, its plugins in `isolation` mode.
    public static func withFixture(in dir: String, _ name: String, id: String, defines: [String] = [],
                                   isolation: IsolationPolicy.Mode, environment: [String: String] = [:]) throws -> DeckdProcess {
        try FileManager.default.createDirectory(atPath: dir + "/plugins", withIntermediateDirectories: true)
        try Fixture.app(in: dir + "/plugins", name, id: id, defines: defines)
        return try DeckdProcess(["--plugins", dir + "/plugins", "--state", "none", "--sink", "file:\(dir)/out.opus",
                                 "--isolation", isolation.rawValue], environment: environment)
    }

    /// The control socket this daemon listens on.
    public var socket: String { dir.path + "/deck.sock" }

    /// The state file it keeps by default.
    public var statePath: String { dir.path + "/deck/state.json" }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Waits until the log contains `fragment`, `times` times (or the process exits, or `seconds` pass).
    @discardableResult
    public func waitForLog(_ fragment: String, times: Int = 1, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        func found() -> Bool { log.components(separatedBy: fragment).count > times }
        while Date() < deadline {
            if found() { return true }
            if !process.isRunning { return found() }
            usleep(10_000)
        }
        return false
    }

    /// Frames the output has made so far, as `deckctl status` reports them.
    public func frames() throws -> Int {
        let status = try runProgram(Paths.binDir + "/deckctl", ["--socket", socket, "--json", "status"])
        let info = try? JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any]
        guard let frames = (info?["output"] as? [String: Any])?["frames"] as? Int else {
            throw CommandFailure(description: "deckctl status gave no output.frames (status \(status.status)): \(status.output)")
        }
        return frames
    }

    /// Waits until the output has made `count` more frames than now; throws when it has not within
    /// `seconds` (a stalled output, or a machine too slow for what follows to mean anything).
    public func waitForFrames(_ count: Int, seconds: Double = 10) throws {
        let began = Date(), start = try frames(), deadline = Date().addingTimeInterval(seconds)
        var made = 0, reads: [String] = []
        while made < count {
            guard Date() < deadline else {
                let status = (try? runProgram(Paths.binDir + "/deckctl", ["--socket", socket, "--json", "status"], timeout: 5).output) ?? ""
                throw CommandFailure(description: "the output made \(made) of \(count) frames in \(seconds) s (read at \(reads.suffix(40).joined(separator: ", "))); status: \(status)\ndeckd's log ends:\n\(log.suffix(3_000))")
            }
            usleep(50_000)  // each read is a deckctl run, about 4 ms of CPU: 20 a second add little load
            made = try frames() - start
            reads.append(String(format: "%.2f s: %d", Date().timeIntervalSince(began), made))
        }
    }

    /// Sends `signal` and returns the exit status, or nil if it did not exit within `seconds`.
    public func stop(signal: Int32 = SIGTERM, seconds: Double = 10) -> Int32? {
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            let waiting = ProcessThreads.snapshot(of: process.processIdentifier)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            print("deckd did not end within \(seconds) s of signal \(signal); its threads and children then:\n\(waiting)\nits log ends:\n\(log.suffix(4_000))")
            return nil
        }
        if process.terminationReason == .exit, process.terminationStatus != 0 {  // the log says why; an expectation shows only the status
            print("deckd exited with status \(process.terminationStatus); its log ends:\n\(log.suffix(4_000))")
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }
}

extension DeckdProcess {
    /// A deckd with the first-party Tone and Prompts (`Paths.corePlugins`) and `extra` flags that said it is ready.
    public static func firstParty(_ extra: [String] = [], environment: [String: String] = [:]) throws -> DeckdProcess {
        let daemon = try DeckdProcess(["--plugins", Paths.corePlugins] + extra, environment: environment)
        guard daemon.waitForLog("deckd: ready") else { throw CommandFailure(description: "deckd did not get ready:\n\(daemon.log)") }
        return daemon
    }

    /// Its apps as `apps.list` answers them ("id", "pid", "state"…).
    public func apps() throws -> [JSONValue] {
        guard let answer = LineClient(path: socket).call("apps.list") else { throw CommandFailure(description: "apps.list went unanswered") }
        return try JSONValue.parse(answer)["result"]?["apps"]?.arrayValue ?? []
    }

    /// Runs deckctl against this daemon's socket.
    public func deckctl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try runProgram(Paths.binDir + "/deckctl", ["--socket", socket] + arguments, timeout: 20)
    }

    /// What deckctl `arguments` print once `condition` holds of it (a screen follows an app's log
    /// line over the host's wire), polled for up to `seconds`; the last output otherwise.
    public func deckctl(_ arguments: [String], seconds: Double = 10, when condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var output = try deckctl(arguments).output
        while !condition(output), Date() < deadline {
            usleep(100_000)
            output = try deckctl(arguments).output
        }
        return output
    }
}
