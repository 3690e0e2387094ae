import DeckBase
import Glibc

/// A runtime's hold on what it alone writes, its state file or its apps' data folders: an
/// open-file-description lock on `.NAME.lock` beside it, so a second runtime (another deckd,
/// another libdeck handle) given the same one is refused rather than both writing it and handing
/// the apps' data folders back and forth. The kernel lets go when the descriptor closes, a crash
/// included; the file stays.
public final class StateLock {
    /// What a lock keeps, for the message that names it.
    public enum Kept: Sendable {
        case stateFile
        /// `dataDirectory`, the apps' data folders.
        case dataDirectory
    }

    private var descriptor: Int32

    /// Nil when no lock file can be made there (a read-only folder, where saves fail and say so).
    public init?(for path: String, keeping kept: Kept = .stateFile) throws(StateFileError) {
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
            let process = holder.map { " (process \($0))" } ?? ""
            let message = switch kept {
            case .stateFile:
                "the state file \(path) is kept by another runtime\(process); give each deckd a state file of its own (--state FILE, or --state none)"
            case .dataDirectory:
                "the apps' data folders \(path) (dataDirectory) are kept by another runtime\(process); give each deckd a dataDirectory of its own"
            }
            throw .inUse(message)
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

    public func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    deinit { release() }
}
