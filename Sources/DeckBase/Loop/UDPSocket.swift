import CLibUV
import Glibc

/// A UDP socket: datagrams sent without queuing (a full socket buffer drops, never blocks) and,
/// optionally, received. Loop-thread-confined.
public final class UDPSocket: LoopHandle {
    private var onDatagram: (([UInt8]) -> Void)?
    private var readBuffer: UnsafeMutableRawBufferPointer?

    public init(loop: EventLoop) throws(LoopError) {
        super.init(owning: loop)
        let status = uv_udp_init(loop.raw, udp)
        if status < 0 {
            discardUninitialised()
            throw LoopError("uv_udp_init", code: status)
        }
        attach()
    }

    private var udp: UnsafeMutablePointer<uv_udp_t> { raw.assumingMemoryBound(to: uv_udp_t.self) }

    public func bind(_ address: SocketAddress) throws(LoopError) {
        let status = address.withSockaddr { uv_udp_bind(udp, $0, 0) }
        try LoopError.check(status, "binding UDP \(address)")
    }

    /// Sends one datagram now; throws when the kernel refuses it (buffer full, unreachable).
    public func send(_ bytes: [UInt8], to address: SocketAddress) throws(LoopError) {
        var bytes = bytes
        let status = bytes.withUnsafeMutableBytes { storage in
            var buffer = uv_buf_init(storage.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(storage.count))
            return address.withSockaddr { uv_udp_try_send(udp, &buffer, 1, $0) }
        }
        try LoopError.check(status, "sending to \(address)")
    }

    /// Whether the multicast datagrams it sends reach this machine's own sockets too (the
    /// kernel's default); needs a bound socket.
    public func loopMulticast(_ loop: Bool) throws(LoopError) {
        try LoopError.check(uv_udp_set_multicast_loop(udp, loop ? 1 : 0), "setting multicast loopback")
    }

    public func startReceiving(_ onDatagram: @escaping ([UInt8]) -> Void) throws(LoopError) {
        self.onDatagram = onDatagram
        if readBuffer == nil { readBuffer = .allocate(byteCount: 64 * 1024, alignment: 1) }
        let status = uv_udp_recv_start(udp, { handle, _, buf in
            let buffer = LoopHandle.owner(handle, as: UDPSocket.self)?.readBuffer
            buf?.pointee = uv_buf_init(buffer?.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(buffer?.count ?? 0))
        }, { handle, count, buf, _, _ in
            guard count > 0, let base = buf?.pointee.base,
                  let owner = LoopHandle.owner(handle, as: UDPSocket.self) else { return }
            owner.onDatagram?(Array(UnsafeRawBufferPointer(start: base, count: count)))
        })
        try LoopError.check(status, "receiving UDP")
    }

    /// The bound address (useful after binding port 0).
    public var localAddress: SocketAddress? {
        SocketAddress.reading { uv_udp_getsockname(udp, $0, $1) }
    }

    public override func close() {
        super.close()
        onDatagram = nil
        readBuffer?.deallocate()
        readBuffer = nil
    }
}
