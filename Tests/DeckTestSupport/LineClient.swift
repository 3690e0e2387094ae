import Foundation

/// A blocking client of deckd's control socket (Unix or TCP) that speaks lines, as a raw or
/// hostile client would.
public final class LineClient {
    public private(set) var fd: Int32

    /// Connects to the Unix socket at `path`; `receiveBuffer` shrinks the kernel's buffer (a client
    /// that reads nothing then fills up sooner).
    public init(path: String, receiveBuffer: Int32? = nil, timeoutSeconds: Int = 10) {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8).prefix($0.count - 1)) }
        connect(to: &address, receiveBuffer: receiveBuffer, timeoutSeconds: timeoutSeconds)
    }

    /// Connects to 127.0.0.1:`port`.
    public init(port: Int, timeoutSeconds: Int = 15) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        connect(to: &address, receiveBuffer: nil, timeoutSeconds: timeoutSeconds)
    }

    private func connect<Address>(to address: inout Address, receiveBuffer: Int32?, timeoutSeconds: Int) {
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends `bytes` as they are; returns how many went out (a dead peer is not a signal).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Int { bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }

    @discardableResult
    public func send(line: String) -> Int { send(Array((line + "\n").utf8)) }

    /// The next line, or nil when the server closed the connection (or the read timed out).
    public func readLine() -> String? {
        var scanned = 0
        while true {
            if let end = received[scanned...].firstIndex(of: 10) {
                defer { received.removeSubrange(...end) }
                return String(decoding: received[..<end], as: UTF8.self)
            }
            scanned = received.count
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else {
                defer { received = [] }
                return received.isEmpty ? nil : String(decoding: received, as: UTF8.self)
            }
            received += chunk[..<count]
        }
    }

    /// Bytes read past the last line returned.
    private var received: [UInt8] = []

    /// Sends one request and returns the next line (its answer when nothing else is subscribed).
    public func call(_ method: String, _ params: String = "{}", id: Int = 1) -> String? {
        send(line: #"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params),"id":\#(id)}"#)
        return readLine()
    }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }
}

/// Resident memory of a process in KiB, from /proc/PID/status.
public func residentKiB(of pid: Int32) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}
