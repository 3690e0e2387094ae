import CLibUV
import Glibc

/// A file written through libuv's thread pool so the loop never blocks on disk; writes land in
/// order, one in flight at a time, and what queues up meanwhile goes out as one write.
/// Loop-thread-confined.
public final class LoopFile {
    private let loop: EventLoop
    private var descriptor: Int32
    public let path: String
    private var queue: [[UInt8]] = []
    private var writing = false
    private var closeCompletion: (() -> Void)?
    /// Called on the loop for every failed write; the file stays open and later writes are tried.
    public var onError: ((LoopError) -> Void)?
    /// Called once on the loop when the file is found deleted (or its folder removed) while open:
    /// what is written after that is lost.
    public var onDeleted: (() -> Void)?
    private var deletedReported = false
    private var lastLinkCheck: UInt64 = 0

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
    /// a FIFO or device unless `mode` is `.pipe`. Opening is synchronous, writing is not.
    public init(loop: EventLoop, path: String, mode: OpenMode = .create, permissions: Int32 = 0o644) throws(LoopFileError) {
        self.loop = loop
        self.path = path
        let creation: Int32 = switch mode {
        case .create: O_CREAT | O_EXCL
        case .overwrite: O_CREAT
        case .pipe: 0
        }
        let fd = Glibc.open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | creation, mode_t(permissions))
        guard fd >= 0 else {
            switch errno {
            case EEXIST:
                var info = stat()
                let regular = lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
                throw regular ? .exists(path) : (info.st_mode & S_IFMT) == S_IFLNK ? .symbolicLink(path) : .notRegular(path)
            case ELOOP: throw .symbolicLink(path)
            case ENXIO: throw mode == .pipe ? .noReader(path) : .notRegular(path)
            case let code: throw .system(path, String(cString: strerror(code)))
            }
        }
        var info = stat()
        let type = fstat(fd, &info) == 0 ? info.st_mode & S_IFMT : 0
        guard mode == .pipe ? type == S_IFIFO || type == S_IFCHR : type == S_IFREG else {
            Glibc.close(fd)
            throw mode == .pipe ? .notPipe(path) : .notRegular(path)
        }
        if mode == .overwrite && ftruncate(fd, 0) != 0 {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw .system(path, reason)
        }
        descriptor = fd
    }

    public var isOpen: Bool { descriptor >= 0 }

    /// Nothing queued and nothing in flight: every write so far has landed (or failed).
    public var isIdle: Bool { !writing && queue.isEmpty }

    /// Appends `bytes` after everything written before.
    public func write(_ bytes: [UInt8]) {
        guard isOpen, !bytes.isEmpty else { return }
        queue.append(bytes)
        writeNext()
    }

    /// Closes the file once queued writes are done.
    public func close(_ completion: (() -> Void)? = nil) {
        guard isOpen else { completion?(); return }
        closeCompletion = completion
        if !writing { finishClose() }
    }

    private func writeNext() {
        guard !writing, !queue.isEmpty else { return }
        writing = true
        let chunks = queue
        queue = []
        FileWrite.start(loop: loop, descriptor: descriptor, chunks: chunks) { [self] error in
            writing = false
            if let error { onError?(error) }
            checkStillLinked()
            if !queue.isEmpty {
                writeNext()
            } else if closeCompletion != nil {
                finishClose()
            }
        }
    }

    /// At most once a second, asks whether the file still has a name (fstat on an open fd does not block).
    private func checkStillLinked() {
        guard !deletedReported, descriptor >= 0, loop.now >= lastLinkCheck + 1_000 else { return }
        lastLinkCheck = loop.now
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_nlink == 0 else { return }
        deletedReported = true
        onDeleted?()
    }

    private func finishClose() {
        var request = uv_fs_t()
        uv_fs_close(loop.raw, &request, descriptor, nil)
        uv_fs_req_cleanup(&request)
        descriptor = -1
        let completion = closeCompletion
        closeCompletion = nil
        completion?()
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }
}

/// One `uv_fs_write` of one or more queued chunks, keeping the bytes alive; short writes continue
/// with the rest.
private final class FileWrite {
    private let request = UnsafeMutablePointer<uv_fs_t>.allocate(capacity: 1)
    private let loop: EventLoop
    private let descriptor: Int32
    private let storage: UnsafeMutableRawBufferPointer
    private var offset = 0
    private let completion: (LoopError?) -> Void

    private init(loop: EventLoop, descriptor: Int32, chunks: [[UInt8]], completion: @escaping (LoopError?) -> Void) {
        self.loop = loop
        self.descriptor = descriptor
        storage = .allocate(byteCount: chunks.reduce(0) { $0 + $1.count }, alignment: 1)
        var offset = 0
        for chunk in chunks {
            UnsafeMutableRawBufferPointer(rebasing: storage[offset..<(offset + chunk.count)]).copyBytes(from: chunk)
            offset += chunk.count
        }
        self.completion = completion
    }

    static func start(loop: EventLoop, descriptor: Int32, chunks: [[UInt8]], completion: @escaping (LoopError?) -> Void) {
        FileWrite(loop: loop, descriptor: descriptor, chunks: chunks, completion: completion).submit()
    }

    private func submit() {
        request.pointee.data = Unmanaged.passRetained(self).toOpaque()
        var buffer = uv_buf_init(storage.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self),
                                 UInt32(storage.count - offset))
        let status = uv_fs_write(loop.raw, request, descriptor, &buffer, 1, -1) { request in
            guard let request, let data = request.pointee.data else { return }
            let write = Unmanaged<FileWrite>.fromOpaque(data).takeRetainedValue()
            let result = request.pointee.result
            uv_fs_req_cleanup(request)
            write.finished(result: result)
        }
        if status < 0 {
            Unmanaged.passUnretained(self).release()
            completion(LoopError("writing", code: status))
        }
    }

    private func finished(result: Int) {
        if result < 0 { return completion(LoopError("writing", code: Int32(result))) }
        offset += result
        if offset < storage.count { submit() } else { completion(nil) }
    }

    deinit {
        request.deallocate()
        storage.deallocate()
    }
}

/// Why an output file could not be created.
public enum LoopFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case exists(String)
    case symbolicLink(String)
    case notRegular(String)
    case notPipe(String)
    case noReader(String)
    case system(String, String)

    public var description: String {
        switch self {
        case .exists(let path): "\(path) already exists; choose a new name, or allow overwriting (files.overwrite, --overwrite-files)"
        case .symbolicLink(let path): "\(path) is a symbolic link; output files are never written through links"
        case .notRegular(let path): "\(path) is not a regular file (a FIFO, socket or device); to write into a pipe, add ?pipe to the URI"
        case .notPipe(let path): "\(path) is not a FIFO or character device, which ?pipe asks for"
        case .noReader(let path): "nobody is reading the FIFO \(path); start its reader first"
        case .system(let path, let reason): "cannot create \(path): \(reason)"
        }
    }
}
