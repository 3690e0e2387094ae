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

    /// Opens (creating or truncating) `path` for writing; opening is synchronous, writing is not.
    public init(loop: EventLoop, path: String, mode: Int32 = 0o644) throws(LoopError) {
        self.loop = loop
        self.path = path
        var request = uv_fs_t()
        let fd = uv_fs_open(loop.raw, &request, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode, nil)
        uv_fs_req_cleanup(&request)
        try LoopError.check(fd, "opening \(path)")
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
            if !queue.isEmpty {
                writeNext()
            } else if closeCompletion != nil {
                finishClose()
            }
        }
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
