import DeckBase
import Glibc
import Synchronization

/// A small JSON document kept across restarts, written atomically off the loop thread: temp file,
/// fsync, rename, fsync of the folder, so a crash at any moment leaves the old or the new state.
/// Saves are debounced; a file that cannot be read as JSON is set aside, never fatal.
/// Loop-thread-confined, except the writer thread it starts for each burst of saves.
public final class StateFile {
    public let path: String
    private let logger: Logger
    private let timer: any SchedulerTimer
    private let delay: UInt64
    private let writer: Writer
    private let lock: StateLock?
    private var pending: JSONValue?
    private var scheduled = false

    /// Refuses (naming the fix) a folder that others may write, or a file another user owns: either
    /// would let someone else decide what deckd restores, as an ssh key or the token file would.
    public init(path: String, delayMilliseconds: Int, scheduler: any Scheduler, logger: Logger) throws(StateFileError) {
        self.path = path
        self.logger = logger
        try StateFile.checkOwnership(path)
        delay = UInt64(max(0, delayMilliseconds))
        do { timer = try scheduler.makeTimer() } catch { throw .loop(error) }
        writer = Writer(path: path, logger: logger)
        do { lock = try StateLock(for: path) } catch {
            timer.close()
            throw error
        }
    }

    private static func checkOwnership(_ path: String) throws(StateFileError) {
        let folder = AtomicFile.split(path).folder
        var info = stat()
        guard stat(folder, &info) == 0 else { throw .unsafe("the state folder \(folder): \(String(cString: strerror(errno)))") }
        guard info.st_uid == geteuid() || info.st_uid == 0 else {
            throw .unsafe("the state folder \(folder) is owned by uid \(info.st_uid), not by you (uid \(geteuid())) or root; "
                          + "choose a folder of your own for state.path")
        }
        guard info.st_mode & 0o022 == 0 else {
            throw .unsafe("the state folder \(folder) is writable by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); "
                          + "run 'chmod go-w \(folder)' or choose another folder for state.path")
        }
        guard lstat(path, &info) == 0 else { return }
        // Only a file deckd wrote is ever set aside or replaced: never a folder (`--state /tmp`), a
        // link, a FIFO or a device.
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .notAFile("the state file \(path) is \(StateFile.kind(of: info.st_mode)), not a regular file; name a file for state.path "
                            + "(deckd replaces it whole at each save)")
        }
        guard info.st_uid == geteuid() else {
            throw .unsafe("the state file \(path) is owned by uid \(info.st_uid), not by you (uid \(geteuid())); "
                          + "remove it or run 'chown \(geteuid()) \(path)'")
        }
    }

    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a folder"
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: "a device"
        }
    }

    /// The saved document, or nil when there is none yet or it was unusable (then it is moved to
    /// `PATH.corrupt-SECONDS` and a warning logged).
    public func load() -> JSONValue? {
        removeLeftovers()
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno != ENOENT { logger.warning("state", "\(path): \(String(cString: strerror(errno))); starting without saved state") }
            return nil
        }
        do {
            let json = try JSONValue.parse(contentsOfFile: path, limits: JSONLimits(maxBytes: StateFile.maxBytes))
            guard case .object = json else { throw JSONFileError.unreadable(path: path, reason: "not a JSON object") }
            return json
        } catch {
            setAside(because: "\(error)")
            return nil
        }
    }

    /// Moves a file that cannot be used to `PATH.corrupt-SECONDS`, with a warning, so deckd starts
    /// fresh and the file is kept for a look.
    public func setAside(because reason: String) {
        let aside = "\(path).corrupt-\(time(nil))"
        let moved = rename(path, aside) == 0
        logger.warning("state", event: .stateSetAside, "\(path): \(reason); starting without saved state" + (moved ? " (the file is kept as \(aside))" : ""))
    }

    /// Removes the temporary files a process killed while saving left beside the file: only names
    /// `AtomicFile` makes (its own hidden prefix and six random characters), each with a log line.
    private func removeLeftovers() {
        let (folder, _) = AtomicFile.split(path)
        let prefix = AtomicFile.split(AtomicFile.temporaryPrefix(for: path)).name
        for entryName in FolderEntries.names(in: folder) ?? [] {
            guard entryName.hasPrefix(prefix), entryName.utf8.count == prefix.utf8.count + 6 else { continue }
            if unlink(folder + "/" + entryName) == 0 { logger.info("state", "removed \(folder)/\(entryName), left by a save that did not finish") }
        }
    }

    /// Saves `document` after the debounce delay; saves in between replace it.
    public func save(_ document: JSONValue) {
        pending = document
        guard !scheduled else { return }
        scheduled = true
        timer.start(after: delay) { [unowned self] in writePending() }
    }

    /// Writes what is pending now and waits until it is on disk (clean shutdown).
    public func flush() {
        timer.stop()
        writePending()
        writer.waitUntilIdle()
    }

    public func close() {
        flush()
        timer.close()
        lock?.release()
    }

    /// Saves written to disk, for tests and benchmarks.
    public var writes: Int { writer.writes }

    private func writePending() {
        scheduled = false
        guard let document = pending else { return }
        pending = nil
        writer.enqueue(Array(document.encoded().utf8) + [10])
    }

    static let maxBytes = 4 << 20
}

/// The thread side: one write at a time, the newest pending document wins.
private final class Writer: Sendable {
    let path: String
    let logger: Logger
    private let state = Mutex<(next: [UInt8]?, busy: Bool, writes: Int)>((nil, false, 0))

    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    var writes: Int { state.withLock { $0.writes } }

    func enqueue(_ bytes: [UInt8]) {
        let start = state.withLock { state -> Bool in
            state.next = bytes
            guard !state.busy else { return false }
            state.busy = true
            return true
        }
        guard start else { return }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Writer>.fromOpaque(context!).takeRetainedValue().drain()
            return nil
        }, context)
        if status == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Writer>.fromOpaque(context).release()
            drain()  // no thread to be had: write here rather than lose the state
        }
    }

    func waitUntilIdle() {
        while state.withLock({ $0.busy }) { usleep(1_000) }
    }

    private func drain() {
        while let bytes = state.withLock({ state -> [UInt8]? in
            defer { state.next = nil }
            if state.next == nil { state.busy = false }
            return state.next
        }) {
            if let problem = AtomicFile.write(bytes, to: path, durable: true) {
                logger.warning("state", "cannot save \(path): \(problem); the previous state stays")
            } else {
                state.withLock { $0.writes += 1 }
            }
        }
    }
}

/// Why the state file cannot be used.
public enum StateFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Its folder or the file itself is open to others; the message names the fix.
    case unsafe(String)
    /// The path names something other than a regular file, which deckd would set aside or replace.
    /// (One string, as each case: a larger payload makes `RuntimeError` too large for Swift 6.3 to
    /// throw from `Runtime.init` without crashing.)
    case notAFile(String)
    /// The document parses but a value in it does not fit (out of range, wrong type).
    case invalid(String)
    /// Another runtime keeps the same file.
    case inUse(String)
    case loop(LoopError)

    public var description: String {
        switch self {
        case .unsafe(let message), .invalid(let message), .notAFile(let message), .inUse(let message): message
        case .loop(let error): "\(error)"
        }
    }
}
