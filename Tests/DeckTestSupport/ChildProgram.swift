import CProcess
import Foundation
import Synchronization

/// A program run beside the tests that inherits no descriptor but its standard three, with
/// signals at their defaults and none blocked. (With Foundation's `Process`, a child could inherit
/// descriptors other threads opened as it spawned: a deckd then held another test's output pipe.)
public final class ChildProgram: Sendable {
    /// Where the child's standard output or error goes.
    public enum Output: Sendable {
        case null
        /// A file, created or truncated.
        case file(String)
        /// A pipe whose read end is `output`.
        case pipe
    }

    public enum TerminationReason: Sendable { case exit, uncaughtSignal }

    public let processIdentifier: Int32
    /// The read end of the pipe that `.pipe` names, until `closeOutput` or this value goes away.
    public var output: Int32? { pipe.withLock { $0 } }
    private let pipe: Mutex<Int32?>
    /// The wait status, once reaped.
    private let ended = Mutex<Int32?>(nil)

    /// Starts `path` with its output to `output` and its errors to `errors`, or with the output when nil.
    public init(_ path: String, _ arguments: [String], environment: [String: String] = [:], output destination: Output = .null,
                errors: Output? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var ends: [Int32] = [-1, -1]
        for (descriptor, place) in [(Int32(1), destination), (2, errors)] {
            switch place {
            case nil:
                posix_spawn_file_actions_adddup2(&actions, 1, descriptor)
            case .null:
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
            case .file(let file):
                posix_spawn_file_actions_addopen(&actions, descriptor, file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .pipe:
                if ends[0] < 0, pipe2(&ends, O_CLOEXEC) != 0 { throw CommandFailure(description: "pipe2: \(String(cString: strerror(errno)))") }
                posix_spawn_file_actions_adddup2(&actions, ends[1], descriptor)
            }
        }
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        if ends[1] >= 0 { close(ends[1]) }
        guard spawned == 0 else {
            if ends[0] >= 0 { close(ends[0]) }
            throw CommandFailure(description: "cannot run \(path): \(String(cString: strerror(spawned)))")
        }
        processIdentifier = pid
        pipe = Mutex(ends[0] >= 0 ? ends[0] : nil)
    }

    deinit { closeOutput() }

    /// The output pipe read as a file handle that leaves closing to this value.
    public var outputHandle: FileHandle? { output.map { FileHandle(fileDescriptor: $0, closeOnDealloc: false) } }

    /// Closes the output pipe's read end: the child's next write to it fails (EPIPE) or ends it (SIGPIPE).
    public func closeOutput() {
        pipe.withLock { end in
            if let open = end { close(open) }
            end = nil
        }
    }

    /// Whether it has not ended; reaps it once it has.
    public var isRunning: Bool { status(waiting: false) == nil }

    public func terminate() { kill(processIdentifier, SIGTERM) }

    public func waitUntilExit() { _ = status(waiting: true) }

    /// Its exit status, or the signal that ended it.
    public var terminationStatus: Int32 {
        let status = self.status(waiting: true) ?? 0
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    public var terminationReason: TerminationReason { (status(waiting: true) ?? 0) & 0x7f == 0 ? .exit : .uncaughtSignal }

    /// The wait status: reaped now if it ended (or, `waiting`, once it does), nil while it runs.
    private func status(waiting: Bool) -> Int32? {
        if let status = ended.withLock({ $0 }) { return status }
        var status: Int32 = 0, reaped: pid_t
        repeat { reaped = waitpid(processIdentifier, &status, waiting ? 0 : WNOHANG) } while reaped < 0 && errno == EINTR
        if reaped == 0 { return nil }
        guard reaped == processIdentifier else {
            // Reaped by another thread meanwhile (ECHILD), which stores it next.
            for _ in 0..<1_000 {
                if let status = ended.withLock({ $0 }) { return status }
                usleep(1_000)
            }
            return nil
        }
        ended.withLock { $0 = status }
        return status
    }
}
