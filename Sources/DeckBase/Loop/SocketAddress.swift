import CLibUV
import Glibc

/// An IPv4 or IPv6 address and port, parsed by libuv.
public struct SocketAddress: Sendable, CustomStringConvertible {
    var storage = sockaddr_storage()
    public let host: String
    public let port: Int

    public init(host: String, port: Int) throws(LoopError) {
        guard (0...65535).contains(port) else { throw LoopError("port \(port)", code: UV_EINVAL.rawValue) }
        self.host = host
        self.port = port
        let status: Int32 = withUnsafeMutableBytes(of: &storage) { bytes in
            if host.contains(":") {
                return uv_ip6_addr(host, Int32(port), bytes.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self))
            }
            return uv_ip4_addr(host, Int32(port), bytes.baseAddress!.assumingMemoryBound(to: sockaddr_in.self))
        }
        try LoopError.check(status, "address \(host)")
    }

    /// Parses `HOST:PORT` (`[::1]:PORT` for IPv6; `localhost` is 127.0.0.1).
    public init(hostPort text: String) throws(LoopError) {
        guard let colon = text.lastIndex(of: ":"), let port = SocketAddress.port(text[text.index(after: colon)...]) else {
            throw LoopError("'\(text)' is not HOST:PORT", code: UV_EINVAL.rawValue)
        }
        let host = String(text[..<colon].drop { $0 == "[" }.reversed().drop { $0 == "]" }.reversed())
        try self.init(host: host == "localhost" ? "127.0.0.1" : host, port: port)
    }

    /// A port written as 1 to 5 digits, at most 65535: no sign, no spaces (`Int` takes `+80`).
    public static func port(_ text: Substring) -> Int? {
        guard (1...5).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let port = Int(text),
              port <= 65535 else { return nil }
        return port
    }

    /// Reads back the address of a bound socket (e.g. the port picked for port 0).
    init(storage: sockaddr_storage) {
        self.storage = storage
        var buffer = [CChar](repeating: 0, count: 64)
        var storage = storage
        let port: UInt16 = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                if address.pointee.sa_family == sa_family_t(AF_INET6) {
                    return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        uv_ip6_name($0, &buffer, buffer.count)
                        return $0.pointee.sin6_port
                    }
                }
                return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    uv_ip4_name($0, &buffer, buffer.count)
                    return $0.pointee.sin_port
                }
            }
        }
        host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.port = Int(UInt16(bigEndian: port))
    }

    /// The address a libuv name query fills in (getsockname, getpeername), or nil when it fails.
    static func reading(_ query: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<Int32>) -> Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { query($0, &length) } }
        return status == 0 ? SocketAddress(storage: storage) : nil
    }

    /// The address as /proc/net/tcp and tcp6 print it: the address's 32-bit words in host order
    /// and the port, in hex (`0100007F:1F90` for 127.0.0.1:8080).
    public var kernelTableKey: String {
        func hex(_ value: UInt32, _ width: Int) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let words: [UInt32] = withUnsafeBytes(of: storage) { bytes in
            let family = bytes.load(as: sockaddr.self).sa_family
            let (offset, count) = family == sa_family_t(AF_INET6) ? (8, 4) : (4, 1)  // sin6_addr, sin_addr
            return (0..<count).map { bytes.loadUnaligned(fromByteOffset: offset + 4 * $0, as: UInt32.self) }
        }
        return words.map { hex($0, 8) }.joined() + ":" + hex(UInt32(port), 4)
    }

    public var isIPv6: Bool { withUnsafeBytes(of: storage) { $0.load(as: sockaddr.self).sa_family == sa_family_t(AF_INET6) } }

    /// The address's own bytes, without port or scope: 4 for IPv4 and for an IPv4-mapped IPv6
    /// address (`::ffff:127.0.0.1`, as a dual-stack socket names its IPv4 peers), else 16. Compared
    /// as bytes, since one address has many spellings (`::1`, `0:0:0:0:0:0:0:1`, `::ffff:7f00:1`).
    var addressBytes: [UInt8] {
        let isIPv6 = isIPv6
        return withUnsafeBytes(of: storage) { raw in
            guard isIPv6 else { return Array(raw[4..<8]) }  // sin_addr
            let bytes = Array(raw[8..<24])  // sin6_addr
            return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff ? Array(bytes[12...]) : bytes
        }
    }

    /// The IPv4 address and port an IPv4-mapped one stands for; nil for any other.
    public var unmapped: SocketAddress? {
        let bytes = addressBytes
        guard isIPv6, bytes.count == 4 else { return nil }
        return try? SocketAddress(host: bytes.map(String.init).joined(separator: "."), port: port)
    }

    /// Whether this is 127.0.0.0/8 or ::1 (IPv4-mapped or not).
    public var isLoopback: Bool {
        let bytes = addressBytes
        return bytes.count == 4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1]
    }

    /// Whether this is the unspecified address (0.0.0.0, ::), which as a destination the kernel
    /// delivers to this machine's loopback.
    public var isUnspecified: Bool { addressBytes.allSatisfy { $0 == 0 } }

    /// Whether this is IPv4's limited broadcast address, 255.255.255.255.
    public var isBroadcast: Bool { addressBytes == [255, 255, 255, 255] }

    /// Whether this is a multicast group (224.0.0.0/4, ff00::/8).
    public var isMulticast: Bool {
        let bytes = addressBytes
        return bytes.count == 4 ? bytes[0] & 0xf0 == 0xe0 : bytes[0] == 0xff
    }

    /// Whether this is one of this machine's addresses (IPv4-mapped or not): loopback, or an
    /// interface's now.
    public var isOnThisMachine: Bool {
        if isLoopback { return true }
        let bytes = addressBytes
        return SocketAddress.interfaceAddresses().contains { $0.addressBytes == bytes }
    }

    /// The addresses of this machine's interfaces that are up now (port 0), loopback's included.
    public static func interfaceAddresses() -> [SocketAddress] {
        var interfaces: UnsafeMutablePointer<uv_interface_address_t>?
        var count: Int32 = 0
        guard uv_interface_addresses(&interfaces, &count) == 0, let interfaces else { return [] }
        defer { uv_free_interface_addresses(interfaces, count) }
        return UnsafeBufferPointer(start: interfaces, count: Int(count)).map { interface in
            var storage = sockaddr_storage()
            withUnsafeBytes(of: interface.address) { address in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: address.prefix($0.count))) }
            }
            return SocketAddress(storage: storage)
        }
    }

    /// Whether a peer at this address, connected to `local`, runs on this machine: it shares the
    /// listener's address, or is one of this machine's (a plugin may connect to loopback from an
    /// interface's address).
    public func isOnThisMachine(connectedTo local: SocketAddress) -> Bool { addressBytes == local.addressBytes || isOnThisMachine }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>) -> R) -> R {
        withUnsafeBytes(of: storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self)) }
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
