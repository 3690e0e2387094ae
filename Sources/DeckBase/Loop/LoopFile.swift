import Glibc

/// A file written by its own thread (`FileWriter`) so the loop never blocks on disk; writes land
/// in order, and what queues up while one is written goes out as one write. A write that lands
/// wakes nobody; failures reach the loop while it runs, and always before a close's completion
/// (an open file does not keep the loop running; a close does). Loop-thread-confined.
public final class LoopFile {
    /// The path that names standard output for `.pipe`.
    public static let standardOutputPath = "/dev/stdout"

    public let path: String
    private let writer: FileWriter
    /// Rung by the writer with news: a failed write, the file deleted, the file closed.
    private let doorbell: AsyncDoorbell
    private var state = State.open
    /// What runs once the writer closed the file.
    private var closeCompletions: [() -> Void] = []
    /// Called on the loop for every failed write, with the bytes `write` took that did not land;
    /// the file stays open and later writes are tried.
    public var onError: ((LoopError, _ lostBytes: Int) -> Void)?
    /// Called once on the loop when the file is found deleted (or its folder removed) while open:
    /// what is written after that is lost.
    public var onDeleted: (() -> Void)?

    private enum State {
        case open, closing, closed
    }

    /// How an output file is opened.
    public enum OpenMode: Sendable, Equatable {
        /// Create a new regular file; an existing one is refused.
        case create
        /// Create, or replace an existing regular file (truncated).
        case overwrite
        /// Open an existing FIFO or character device that a reader is waiting on (e.g. a
        /// snapserver pipe source); writes that would block fail and are counted instead.
        case pipe
    }

    /// Opens `path` for writing without blocking the loop: never through a symbolic link, and never
    /// a FIFO or device unless `mode` is `.pipe`, and never a terminal, which a binary stream would
    /// garble. Opening is synchronous, writing is not.
    /// `/dev/stdout` with `.pipe` is the process's standard output when that is a pipe
    /// (`deckd --sink file:- | ffplay -`): opened anew through its link, so its
    /// non-blocking writes leave the descriptor the process shares with its parent as it was.
    public init(loop: EventLoop, path: String, mode: OpenMode = .create, permissions: Int32 = 0o644) throws(LoopFileError) {
        self.path = path
        let creation: Int32 = switch mode {
        case .create: O_CREAT | O_EXCL
        case .overwrite: O_CREAT
        case .pipe: 0
        }
        let standardOutput = mode == .pipe && path == LoopFile.standardOutputPath
        let fd = Glibc.open(standardOutput ? "/proc/self/fd/1" : path,
                            O_WRONLY | O_CLOEXEC | (standardOutput ? 0 : O_NOFOLLOW) | O_NONBLOCK | O_NOCTTY | creation, mode_t(permissions))
        guard fd >= 0 else {
            switch errno {
            case EEXIST:
                var info = stat()
                let regular = lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
                throw regular ? .exists(path) : (info.st_mode & S_IFMT) == S_IFLNK ? .symbolicLink(path) : .notRegular(path)
            case ELOOP: throw .symbolicLink(path)
            case ENXIO: throw mode == .pipe ? .noReader(path) : .notRegular(path)
            case ENOENT where mode == .pipe: throw .noPipe(path)
            case let code: throw .system(path, String(cString: strerror(code)))
            }
        }
        var info = stat()
        let type = fstat(fd, &info) == 0 ? info.st_mode & S_IFMT : 0
        guard mode == .pipe ? type == S_IFIFO || type == S_IFCHR : type == S_IFREG else {
            Glibc.close(fd)
            throw mode == .pipe ? .notPipe(path) : .notRegular(path)
        }
        if isatty(fd) != 0 {
            Glibc.close(fd)
            throw .terminal(path)
        }
        if mode == .overwrite && ftruncate(fd, 0) != 0 {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw .system(path, reason)
        }
        var news: (() -> Void)?
        do {
            doorbell = try AsyncDoorbell(loop: loop) { news?() }
            doorbell.keepsLoopAlive = false  // until a close waits for the writer
            writer = try FileWriter(descriptor: fd, ringer: doorbell.ringer)
        } catch {
            Glibc.close(fd)
            throw .system(path, error.description)
        }
        news = { [unowned self] in hearNews() }
    }

    /// Whether writes are taken: from the open until `close()`.
    public var isOpen: Bool { state == .open }

    /// Nothing waiting and nothing being written: every write so far has landed, or failed and
    /// reached `onError` (or `onDeleted`) already.
    public var isIdle: Bool { writer.isIdle }

    /// Appends `bytes` after everything written before; false when they were not taken: the file
    /// is closed, or its disk has fallen 4 MiB behind (then they are dropped whole and `onError`
    /// says so, so a stream's pages stay whole).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        guard isOpen else { return false }
        guard !bytes.isEmpty else { return true }
        guard writer.append(bytes) else {
            let behind = "the disk is not keeping up: \(writer.maxPendingBytes >> 20) MiB already wait, so \(bytes.count) bytes were dropped"
            onError?(LoopError("writing (\(behind))", code: -ENOBUFS), 0)
            return false
        }
        return true
    }

    /// Closes the file once queued writes are done; `completion` then runs on the loop. The loop
    /// runs until then.
    public func close(_ completion: (() -> Void)? = nil) {
        switch state {
        case .closed: completion?()
        case .closing: if let completion { closeCompletions.append(completion) }
        case .open:
            state = .closing
            if let completion { closeCompletions.append(completion) }
            doorbell.keepsLoopAlive = true
            writer.close()
        }
    }

    /// Hands on, on the loop, what the writer reported.
    private func hearNews() {
        let news = writer.takeNews()
        for failure in news.failures { onError?(LoopError("writing", code: -failure.code), failure.lostBytes) }
        if news.deleted { onDeleted?() }
        guard news.closed else { return }
        state = .closed
        doorbell.close()
        let completions = closeCompletions
        closeCompletions = []
        completions.forEach { $0() }
    }

    deinit {
        if state == .open { writer.close() }
        doorbell.close()
    }
}

/// Why an output file could not be created.
public enum LoopFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case exists(String)
    case symbolicLink(String)
    case notRegular(String)
    case notPipe(String)
    case noReader(String)
    case noPipe(String)
    case terminal(String)
    case system(String, String)

    public var description: String {
        switch self {
        case .exists(let path): "\(path) already exists; choose a new name, or allow overwriting (files.overwrite, --overwrite-files)"
        case .symbolicLink(let path): "\(path) is a symbolic link; output files are never written through links"
        case .notRegular(let path): "\(path) is not a regular file (a FIFO, socket or device); to write into a pipe, add ?pipe to the URI"
        case .notPipe(LoopFile.standardOutputPath):
            "standard output is not a pipe: the stream goes there only when deckd's output is piped to a reader (deckd … | ffplay -); "
                + "to record it, name a file (file:out.opus)"
        case .notPipe(let path): "\(path) is not a FIFO or character device, which ?pipe asks for"
        case .noReader(let path): "nobody is reading the FIFO \(path); start its reader first"
        case .noPipe(let path): "\(path) does not exist; ?pipe writes into a FIFO that is there (mkfifo makes one), and creates no file"
        case .terminal(let path):
            "\(path == LoopFile.standardOutputPath ? "standard output" : path) is a terminal, which the binary stream would garble; "
                + "pipe it to a player (deckd … | ffplay -) or name a file (file:out.opus)"
        case .system(let path, let reason): "cannot create \(path): \(reason)"
        }
    }
}
