import Glibc

/// The kernel's small files (/proc, /sys, cgroupfs), read whole: their size is only known once read.
public enum SystemFile {
    /// The text of `path`, at most `limit` bytes of it; nil when it cannot be opened.
    public static func read(_ path: String, limit: Int = 16 << 20) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes.prefix(limit), as: UTF8.self)
    }
}
