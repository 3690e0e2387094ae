import Glibc

/// Small files read whole (lists, pictures, the app's saved state).
public enum FileBytes {
    /// The bytes of `path`, or nil when it cannot be read, holds more than `maxBytes`, or is not a
    /// regular file (a FIFO in its place would hold the reading thread until a writer came).
    public static func read(_ path: String, maxBytes: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= maxBytes else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > maxBytes { return nil }  // it grew while being read
        }
    }

    /// Writes `bytes` to `path` through a temporary file renamed over it (never half a file): nil,
    /// or why it could not, in the system's words.
    public static func write(_ bytes: [UInt8], to path: String) -> String? {
        let temporary = path + ".new"
        guard let file = fopen(temporary, "wb") else { return String(cString: strerror(errno)) }
        let written = fwrite(bytes, 1, bytes.count, file) == bytes.count && fflush(file) == 0 && fsync(fileno(file)) == 0
        let problem = written ? nil : String(cString: strerror(errno))
        fclose(file)
        if let problem {
            unlink(temporary)
            return problem
        }
        return rename(temporary, path) == 0 ? nil : String(cString: strerror(errno))
    }

    /// The folder `path` is in ("." for a bare name).
    public static func folder(of path: String) -> String {
        path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    }

    /// The last part of `path`: its name in its folder.
    public static func name(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    /// An absolute `path` spelt one way: no empty or `.` parts, `..` taken back by name (links are
    /// not followed), no trailing slash. A relative path is returned as it is.
    public static func normalized(_ path: String) -> String {
        guard path.hasPrefix("/") else { return path }
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The file's modification time and size, to notice a change; nil when it is not there.
    public static func signature(_ path: String) -> [Int]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_size)] + identity(info)
    }

    /// The name in a directory entry, as bytes up to its NUL. `d_name` is declared 256 bytes, but
    /// an entry in readdir's buffer is only as long as its name: the last one's array runs past
    /// the buffer's end, so the whole array must not be read (a heap over-read, or a fault at a
    /// page's end).
    public static func entryName(_ entry: UnsafePointer<dirent>) -> [UInt8] {
        let name = UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \.d_name)!
        return Array(UnsafeRawBufferPointer(start: name, count: strlen(name.assumingMemoryBound(to: CChar.self))))
    }

    /// The file's device and inode as a key. Their bits are kept as they are: overlayfs (xino) and
    /// FUSE file systems give inode numbers with the top bit set, which `Int(_:)` would trap on.
    public static func identity(_ info: stat) -> [Int] {
        [Int(truncatingIfNeeded: info.st_dev), Int(truncatingIfNeeded: info.st_ino)]
    }
}
