import Glibc

/// Replaces a file whole: the bytes go to a fresh, uniquely named file beside it (mkstemp:
/// created exclusively, never through a planted link), which is renamed over the path. Readers
/// see the old file or the new one, never a torn one. Blocking: call it off the loop thread, or
/// for small files at start-up.
public enum AtomicFile {
    /// Writes `bytes` to `path` with `mode`; `durable` also syncs the data and the folder, so the
    /// new file survives a power cut once this returns. The reason on failure, else nil.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600, durable: Bool = false) -> String? {
        var template = Array((temporaryPrefix(for: path) + String(repeating: "X", count: 6)).utf8CString)  // mkstemp's template
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            written += count
        }
        let complete = written == bytes.count && fchmod(fd, mode) == 0 && (!durable || fsync(fd) == 0)
        let closed = Glibc.close(fd) == 0
        guard complete, closed, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return reason
        }
        if durable {
            let directory = open(split(path).folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directory >= 0 {
                fsync(directory)
                Glibc.close(directory)
            }
        }
        return nil
    }

    /// Where the temporary files for `path` start: a hidden name of Deck's own beside it
    /// (`DIR/.deck-tmp.NAME.` and six random characters), so a cleanup never touches another's file.
    public static func temporaryPrefix(for path: String) -> String {
        let (folder, name) = split(path)
        return (folder == "/" ? "" : folder) + "/.deck-tmp." + name + "."
    }

    /// A path's folder ("." for a bare name, "/" at the root) and last component.
    public static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }
}
