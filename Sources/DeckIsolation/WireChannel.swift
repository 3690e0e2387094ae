import CProcess
import DeckBase
import DeckPlugins
import Glibc
import Synchronization

/// One end of the socket between the runtime and a plugin host process: length-prefixed
/// messages, each bounded, read into a buffer as they arrive and sent whole.
package final class WireChannel: @unchecked Sendable {  // Sends are serialised by `sendLock` (host threads log from anywhere); reads stay on one thread.
    package let descriptor: Int32
    private let maxMessageBytes: Int
    private var received: [UInt8] = []
    private var consumed = 0
    private let sendLock = Mutex<Bool>(false)
    private static let chunk = 64 << 10
    private let scratch = UnsafeMutableRawPointer.allocate(byteCount: WireChannel.chunk, alignment: 8)

    /// Takes `descriptor` (a connected stream socket) and makes it non-blocking; `close()` closes it.
    package init(descriptor: Int32, maxMessageBytes: Int) {
        self.descriptor = descriptor
        self.maxMessageBytes = maxMessageBytes
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit { scratch.deallocate() }

    package func close() {
        sendLock.withLock { closed in
            guard !closed else { return }
            closed = true
            _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
            _ = Glibc.close(descriptor)
        }
    }

    /// Sends one message whole, waiting up to `timeoutMs` (-1: for ever) for room.
    package func send(_ message: WireWriter, timeoutMs: Int32 = -1) throws(WireError) {
        let bytes = message.message
        let result: WireError? = sendLock.withLock { closed in
            guard !closed else { return .closed }
            var sent = 0
            while sent < bytes.count {
                let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
                if count > 0 {
                    sent += count
                } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
                    if errno == EAGAIN, !WireChannel.wait(descriptor, for: Int16(POLLOUT), timeoutMs: timeoutMs) {
                        return .timedOut(milliseconds: Int(timeoutMs))
                    }
                } else {
                    return errno == EPIPE || errno == ECONNRESET ? .closed : .io("send: \(String(cString: strerror(errno)))")
                }
            }
            return nil
        }
        if let result { throw result }
    }

    /// Reads what has arrived, at most one chunk, without blocking. Throws `.closed` at the end.
    package func readAvailable() throws(WireError) {
        if consumed > 0 && consumed * 2 >= received.count {
            received.removeFirst(consumed)
            consumed = 0
        }
        let count = Glibc.recv(descriptor, scratch, WireChannel.chunk, 0)
        if count > 0 { received.append(contentsOf: UnsafeRawBufferPointer(start: scratch, count: count)) }
        if count == 0 { throw .closed }
        if count < 0 && errno != EAGAIN && errno != EINTR {
            throw errno == ECONNRESET ? .closed : .io("recv: \(String(cString: strerror(errno)))")
        }
    }

    /// The next complete message already read, or nil.
    package func nextMessage() throws(WireError) -> WireReader? {
        let available = received.count - consumed
        guard available >= 4 else { return nil }
        var length: UInt32 = 0
        withUnsafeMutableBytes(of: &length) { $0.copyBytes(from: received[consumed..<consumed + 4]) }
        let size = Int(UInt32(littleEndian: length))
        guard size <= maxMessageBytes else { throw .tooLarge(size, limit: maxMessageBytes) }
        guard available >= 4 + size else { return nil }
        let body = Array(received[consumed + 4..<consumed + 4 + size])
        consumed += 4 + size
        return try WireReader(body: body)
    }

    /// Waits up to `timeoutMs` (-1: for ever) for the next message.
    package func receive(timeoutMs: Int32) throws(WireError) -> WireReader {
        while true {
            if let message = try nextMessage() { return message }
            guard WireChannel.wait(descriptor, for: Int16(POLLIN), timeoutMs: timeoutMs) else { throw .timedOut(milliseconds: Int(timeoutMs)) }
            try readAvailable()
        }
    }

    /// Sends `request` and waits for the message of kind `answer`, handing every other message
    /// that arrives first to `serve` (the other side's nested calls). The whole exchange, nested
    /// calls included, must end within `timeoutMs` (-1: no limit).
    package func exchange(_ request: WireWriter, answer: WireKind, timeoutMs: Int32,
                          serve: (inout WireReader) throws(WireError) -> Void) throws(WireError) -> WireReader {
        let deadline = MonotonicClock.milliseconds + Int(timeoutMs)
        func remaining() throws(WireError) -> Int32 {
            guard timeoutMs >= 0 else { return -1 }
            let left = deadline - MonotonicClock.milliseconds
            guard left > 0 else { throw .timedOut(milliseconds: Int(timeoutMs)) }
            return Int32(left)
        }
        try send(request, timeoutMs: try remaining())
        while true {
            let wait = try remaining()
            var message: WireReader
            do throws(WireError) {
                message = try receive(timeoutMs: wait)
            } catch .timedOut {
                throw .timedOut(milliseconds: Int(timeoutMs))
            }
            if message.kind == answer { return message }
            try serve(&message)
        }
    }

    private static func wait(_ descriptor: Int32, for events: Int16, timeoutMs: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: events, revents: 0)
        while true {
            let ready = poll(&poller, 1, timeoutMs)
            if ready < 0 && errno == EINTR { continue }
            return ready != 0
        }
    }
}
