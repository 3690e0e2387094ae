import Glibc

/// Why a JSON file could not be used: it could not be read, or it is not valid JSON.
public enum JSONFileError: Error, Equatable, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case malformed(path: String, JSONParseError)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .malformed(let path, let error): "\(path) is not valid JSON: \(error)"
        }
    }
}

extension JSONValue {
    /// Reads and parses a JSON file (with jansson), refusing files larger than `limits.maxBytes` before reading them.
    /// A leading UTF-8 byte order mark, which Windows editors write, is skipped (RFC 8259, 8.1).
    public static func parse(contentsOfFile path: String, limits: JSONLimits = JSONLimits()) throws(JSONFileError) -> JSONValue {
        var bytes = try readFile(path, limit: limits.maxBytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        do {
            return try parseWithJansson(bytes, limits: limits)
        } catch {
            throw .malformed(path: path, error)
        }
    }

    private static func readFile(_ path: String, limit: Int) throws(JSONFileError) -> [UInt8] {
        // O_NONBLOCK: a FIFO or device in the way must not block the loop in open(); it is refused below.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .unreadable(path: path, reason: "not a regular file") }
        guard info.st_size <= limit else {
            throw .unreadable(path: path, reason: "\(info.st_size) bytes is over the limit of \(limit) bytes")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw .unreadable(path: path, reason: count < 0 ? String(cString: strerror(errno)) : "file shrank while reading") }
            filled += count
        }
        return bytes
    }
}
