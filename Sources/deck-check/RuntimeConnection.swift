import DeckBase
import Glibc

/// A JSON-RPC client of the test runtime's control socket: one request at a time, answers matched
/// by id, notifications skipped.
final class RuntimeConnection {
    struct CallError: Error, CustomStringConvertible {
        var code: Int
        var message: String
        var description: String { "\(message) (\(code))" }
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var nextID = 1

    /// Connects to `process`'s socket once it opens, waiting `seconds` at most and not past its end.
    init?(socket path: String, of process: Spawned, seconds: Double) {
        let deadline = Monotonic.now + seconds
        while true {
            let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
            }
            if connected {
                descriptor = fd
                return
            }
            close(fd)
            guard Monotonic.now < deadline, process.isRunning else { return nil }
            usleep(50_000)
        }
    }

    deinit { close(descriptor) }

    /// Calls `method` and waits up to `seconds` for its answer.
    func call(_ method: String, _ params: JSONValue = .object([:]), seconds: Double = 10) throws(CallError) -> JSONValue {
        let id = nextID
        nextID += 1
        let request: JSONValue = ["jsonrpc": "2.0", "id": .int(Int64(id)), "method": .string(method), "params": params]
        let line = Array((request.encoded() + "\n").utf8)
        guard line.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == line.count else {
            throw CallError(code: -1, message: "the runtime closed its socket")
        }
        let deadline = Monotonic.now + seconds
        while true {
            while let newline = buffer.firstIndex(of: 10) {
                let text = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                guard let answer = try? JSONValue.parse(text), answer["id"]?.intValue == Int64(id) else { continue }
                if let error = answer["error"] {
                    throw CallError(code: Int(error["code"]?.intValue ?? 0), message: error["message"]?.stringValue ?? "an error")
                }
                return answer["result"] ?? .null
            }
            let left = deadline - Monotonic.now
            guard left > 0 else { throw CallError(code: -1, message: "no answer to \(method) within \(Int(seconds)) s") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            guard count > 0 else { throw CallError(code: -1, message: "the runtime closed its socket") }
            buffer += chunk[..<count]
            guard buffer.count < 16 << 20 else { throw CallError(code: -1, message: "an answer over 16 MiB") }
        }
    }
}

/// Seconds on the monotonic clock.
enum Monotonic {
    static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
