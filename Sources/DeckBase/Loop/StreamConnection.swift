import CLibUV
import CProcess
import Glibc

/// One connected stream socket (Unix or TCP): reads as events, writes queued in order. Loop-thread-confined.
public final class StreamConnection: LoopHandle {
    public enum ReadEvent {
        case data([UInt8])
        case end
        case failed(LoopError)
    }

    private var onRead: ((ReadEvent) -> Void)?
    private var readBuffer: UnsafeMutableRawBufferPointer?

    init(loop: EventLoop, unix: Bool) throws(LoopError) {
        super.init(owning: loop)
        let status = unix
            ? uv_pipe_init(loop.raw, raw.assumingMemoryBound(to: uv_pipe_t.self), 0)
            : uv_tcp_init(loop.raw, raw.assumingMemoryBound(to: uv_tcp_t.self))
        if status < 0 {
            discardUninitialised()
            throw LoopError("creating a client socket", code: status)
        }
        attach()
    }

    var stream: UnsafeMutablePointer<uv_stream_t> { raw.assumingMemoryBound(to: uv_stream_t.self) }

    /// Delivers received bytes, then `.end` or `.failed` once.
    public func startReading(_ onRead: @escaping (ReadEvent) -> Void) {
        guard !isClosed else { return }
        self.onRead = onRead
        if readBuffer == nil { readBuffer = .allocate(byteCount: 64 * 1024, alignment: 1) }
        uv_read_start(stream, { handle, _, buf in
            guard let owner = LoopHandle.owner(handle, as: StreamConnection.self), let buffer = owner.readBuffer else {
                buf?.pointee = uv_buf_init(nil, 0)
                return
            }
            buf?.pointee = uv_buf_init(buffer.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(buffer.count))
        }, { handle, count, buf in
            guard let owner = LoopHandle.owner(handle, as: StreamConnection.self) else { return }
            if count > 0, let base = buf?.pointee.base {
                let bytes = UnsafeRawBufferPointer(start: base, count: count)
                owner.onRead?(.data(Array(bytes)))
            } else if count == Int(UV_EOF.rawValue) {
                owner.stopReading()
                owner.onRead?(.end)
            } else if count < 0 {
                owner.stopReading()
                owner.onRead?(.failed(LoopError("reading", code: Int32(count))))
            }
        })
    }

    public func stopReading() {
        guard !isClosed else { return }
        uv_read_stop(stream)
    }

    /// Queues `bytes`; `completion` runs on the loop once they are written or failed.
    public func write(_ bytes: [UInt8], completion: ((LoopError?) -> Void)? = nil) {
        guard !isClosed else {
            completion?(LoopError("writing", code: UV_EPIPE.rawValue))
            return
        }
        WriteRequest.start(bytes, on: stream, completion: completion)
    }

    /// The connected peer's address, for TCP connections; nil for Unix sockets or once closed.
    public var peerAddress: SocketAddress? {
        guard !isClosed, handle.pointee.type == UV_TCP else { return nil }
        return SocketAddress.reading { uv_tcp_getpeername(raw.assumingMemoryBound(to: uv_tcp_t.self), $0, $1) }
    }

    /// This end's address of a TCP connection; nil for another kind of socket or a closed one.
    public var localAddress: SocketAddress? {
        guard !isClosed, handle.pointee.type == UV_TCP else { return nil }
        return SocketAddress.reading { uv_tcp_getsockname(raw.assumingMemoryBound(to: uv_tcp_t.self), $0, $1) }
    }

    /// The socket's file descriptor (fds are handed out lowest first, so it also tells how many
    /// the process has open), or -1.
    /// The peer of a Unix-socket connection as the kernel saw it at connect (SO_PEERCRED); nil
    /// for another kind of socket or a closed one.
    public var peerCredentials: (pid: pid_t, uid: uid_t)? {
        let fd = fileDescriptor
        guard fd >= 0 else { return nil }
        var pid: pid_t = 0, uid: uid_t = 0
        guard deck_peer_credentials(fd, &pid, &uid) == 0, pid > 0 else { return nil }
        return (pid, uid)
    }

    public var fileDescriptor: Int32 {
        var fd = uv_os_fd_t(-1)
        return isClosed || uv_fileno(handle, &fd) != 0 ? -1 : fd
    }

    /// Why this connection should be turned away: its descriptor is within `reserve` of the
    /// process's limit (`ulimit -n`), whose last ones are kept for what must not fail; nil otherwise.
    public func descriptorShortage(keeping reserve: Int) -> String? {
        var limit = rlimit()
        let fd = fileDescriptor
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, fd >= 0,
              rlim_t(fd) + rlim_t(reserve) >= limit.rlim_cur else { return nil }
        return "file descriptor \(fd) is within \(reserve) of the limit of \(limit.rlim_cur) (ulimit -n; LimitNOFILE= in the unit)"
    }

    /// Writes what the kernel takes right now (no queue, no callback) and returns how many bytes
    /// that was: for answers when nothing is queued, and a short last word before `close()`.
    @discardableResult
    public func writeNow(_ bytes: [UInt8]) -> Int {
        guard !isClosed, !bytes.isEmpty else { return 0 }
        return bytes.withUnsafeBytes { storage in
            // uv_try_write only reads the buffer; uv_buf_t merely has no const pointer.
            var buffer = uv_buf_init(UnsafeMutablePointer(mutating: storage.baseAddress?.assumingMemoryBound(to: CChar.self)), UInt32(storage.count))
            return Int(max(uv_try_write(stream, &buffer, 1), 0))
        }
    }

    /// Bytes queued but not yet handed to the kernel: a slow reader makes this grow.
    public var pendingWriteBytes: Int { isClosed ? 0 : uv_stream_get_write_queue_size(stream) }

    public override func close() {
        super.close()
        onRead = nil
        readBuffer?.deallocate()
        readBuffer = nil
    }
}

/// One `uv_write` in flight: keeps its bytes and completion alive until libuv calls back.
private final class WriteRequest {
    private let request = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
    private let storage: UnsafeMutableRawBufferPointer
    private let count: Int
    private let completion: ((LoopError?) -> Void)?

    private init(bytes: [UInt8], completion: ((LoopError?) -> Void)?) {
        storage = .allocate(byteCount: max(bytes.count, 1), alignment: 1)
        storage.copyBytes(from: bytes)
        count = bytes.count
        self.completion = completion
    }

    /// Starts the write; the request keeps itself alive until libuv calls back.
    static func start(_ bytes: [UInt8], on stream: UnsafeMutablePointer<uv_stream_t>,
                      completion: ((LoopError?) -> Void)?) {
        let write = WriteRequest(bytes: bytes, completion: completion)
        let retained = Unmanaged.passRetained(write)
        write.request.pointee.data = retained.toOpaque()
        var buffer = uv_buf_init(write.storage.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(write.count))
        let status = uv_write(write.request, stream, &buffer, 1) { request, status in
            guard let data = request?.pointee.data else { return }
            let write = Unmanaged<WriteRequest>.fromOpaque(data).takeRetainedValue()
            write.completion?(status < 0 ? LoopError("writing", code: status) : nil)
        }
        if status < 0 {
            retained.release()
            completion?(LoopError("writing", code: status))
        }
    }

    deinit {
        request.deallocate()
        storage.deallocate()
    }
}
