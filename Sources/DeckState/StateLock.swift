import DeckBase
import Glibc

/// A runtime's hold on its state file: an open-file-description lock on `.NAME.lock` beside it,
/// so a second runtime (another deckd, another libdeck handle) given the same file is refused
/// rather than both writing it and handing the apps' data folders back and forth. The kernel lets
/// go when the descriptor closes, a crash included; the file stays.
final class StateLock {
    private var descriptor: Int32

    /// Nil when no lock file can be made there (a read-only folder, where saves fail and say so).
    init?(for path: String) throws(StateFileError) {
        let (folder, name) = AtomicFile.split(path)
        let lockPath = "\(folder)/.\(name).lock"
        descriptor = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        var whole = Glibc.flock()
        whole.l_type = Int16(F_WRLCK)
        whole.l_whence = Int16(SEEK_SET)
        guard fcntl(descriptor, StateLock.setOFDLock, &whole) == 0 else {
            let held = errno == EAGAIN || errno == EACCES
            let holder = StateLock.holder(descriptor)
            release()
            guard held else { return nil }  // a file system without locks: as before, unguarded
            throw .inUse("the state file \(path) is kept by another runtime\(holder.map { " (process \($0))" } ?? ""); "
                         + "give each deckd a state file of its own (--state FILE, or --state none)")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    /// `F_OFD_SETLK` (Linux 3.15), which Swift's Glibc module does not carry over.
    private static let setOFDLock: Int32 = 37

    /// The process id the holder wrote into the lock file.
    private static func holder(_ descriptor: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Int32(String(decoding: bytes[..<count].prefix { $0 != 10 }, as: UTF8.self)) : nil
    }

    func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    deinit { release() }
}
