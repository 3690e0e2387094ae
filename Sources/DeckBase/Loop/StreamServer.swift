import CLibUV
import Glibc

/// A listening Unix-domain or TCP socket handing each accepted client to its owner. Loop-thread-confined.
public final class StreamServer: LoopHandle {
    public enum Address: Sendable {
        case unix(path: String)
        case tcp(SocketAddress)
    }

    private let address: Address
    private var onConnection: ((StreamConnection) -> Void)?
    /// Called when a connection could not be accepted (e.g. EMFILE: out of file descriptors);
    /// libuv has already closed the waiting connection so the listener does not spin.
    public var onAcceptError: ((LoopError) -> Void)?

    /// Creates the socket and binds it; `listen` starts accepting.
    public init(loop: EventLoop, address: Address) throws(LoopError) {
        self.address = address
        super.init(owning: loop)
        let status: Int32 = switch address {
        case .unix: uv_pipe_init(loop.raw, raw.assumingMemoryBound(to: uv_pipe_t.self), 0)
        case .tcp: uv_tcp_init(loop.raw, raw.assumingMemoryBound(to: uv_tcp_t.self))
        }
        if status < 0 {
            discardUninitialised()
            throw LoopError("creating the socket", code: status)
        }
        attach()
        do {
            switch address {
            case .unix(let path):
                try LoopError.check(uv_pipe_bind(raw.assumingMemoryBound(to: uv_pipe_t.self), path), "binding \(path)")
            case .tcp(let socketAddress):
                let status = socketAddress.withSockaddr { uv_tcp_bind(raw.assumingMemoryBound(to: uv_tcp_t.self), $0, 0) }
                try LoopError.check(status, "binding \(socketAddress)")
            }
        } catch {
            close()
            throw error
        }
    }

    public func listen(backlog: Int32 = 128, _ onConnection: @escaping (StreamConnection) -> Void) throws(LoopError) {
        self.onConnection = onConnection
        let status = uv_listen(raw.assumingMemoryBound(to: uv_stream_t.self), backlog) { server, status in
            guard let owner = LoopHandle.owner(server, as: StreamServer.self) else { return }
            guard status >= 0 else { return owner.onAcceptError?(LoopError("accepting a connection", code: status)) ?? () }
            owner.accept()
        }
        // libuv binds a TCP socket for real at listen: a port someone holds fails here.
        if case .tcp(let socketAddress) = address, status == UV_EADDRINUSE.rawValue {
            throw LoopError("listening on \(socketAddress) (another program holds the port)", code: status)
        }
        try LoopError.check(status, "listening")
    }

    /// The bound TCP address (useful after binding port 0); nil for Unix sockets.
    public var localAddress: SocketAddress? {
        guard case .tcp = address else { return nil }
        return SocketAddress.reading { uv_tcp_getsockname(raw.assumingMemoryBound(to: uv_tcp_t.self), $0, $1) }
    }

    private func accept() {
        let isUnix = if case .unix = address { true } else { false }
        guard let client = try? StreamConnection(loop: loop, unix: isUnix) else { return }
        let status = uv_accept(raw.assumingMemoryBound(to: uv_stream_t.self), client.stream)
        guard status == 0 else {
            client.close()
            onAcceptError?(LoopError("accepting a connection", code: status))
            return
        }
        onConnection?(client)
    }
}
