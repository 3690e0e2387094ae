import DeckBase
import DeckMedia
import Glibc

/// Now playing's artwork as a file for MPRIS clients, whose `mpris:artUrl` is a URL where apps
/// hand over bytes: each picture written once into a private folder (under `$XDG_RUNTIME_DIR`,
/// else /tmp), the one before removed, the folder removed at close. Loop-thread-confined.
final class ArtworkFile {
    private let base: String
    private let logger: Logger
    private var folder: String?
    private var written: (id: String, bytes: [UInt8], path: String, url: String)?
    /// A failure is logged once until a picture is written again.
    private var failureLogged = false

    init(base: String? = nil, logger: Logger) {
        let runtime = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) } ?? ""
        self.base = base ?? (runtime.hasPrefix("/") ? runtime : "/tmp")
        self.logger = logger
    }

    /// The `file://` URL of `artwork`'s bytes, written on the first ask; nil for no artwork, or
    /// when it cannot be written (logged).
    func url(for artwork: Artwork?) -> String? {
        if let written, let artwork, written.id == artwork.id, written.bytes == artwork.bytes { return written.url }
        removeWritten()
        guard let artwork else { return nil }
        do throws(ArtworkFileError) {
            let folder = try existingOrNewFolder()
            let path = folder + "/" + artwork.id + (artwork.mimeType == "image/png" ? ".png" : ".jpg")
            try write(artwork.bytes, to: path)
            let url = "file://" + ArtworkFile.percentEncoded(path)
            written = (artwork.id, artwork.bytes, path, url)
            failureLogged = false
            return url
        } catch {
            if !failureLogged { logger.warning("mpris", "MPRIS clients get no artwork: \(error)") }
            failureLogged = true
            return nil
        }
    }

    /// Removes the picture and the folder.
    func close() {
        removeWritten()
        if let folder { rmdir(folder) }
        folder = nil
    }

    private func removeWritten() {
        if let written { unlink(written.path) }
        written = nil
    }

    private func existingOrNewFolder() throws(ArtworkFileError) -> String {
        if let folder { return folder }
        var template = Array((base + "/deck-artwork-XXXXXX").utf8CString)  // mkdtemp puts a unique suffix for the six X's
        guard let made = mkdtemp(&template) else { throw .cannotCreate(base, String(cString: strerror(errno))) }
        let folder = String(cString: made)
        self.folder = folder
        return folder
    }

    private func write(_ bytes: [UInt8], to path: String) throws(ArtworkFileError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotWrite(path, String(cString: strerror(errno))) }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let reason = String(cString: strerror(errno))
                Glibc.close(fd)
                unlink(path)
                throw .cannotWrite(path, reason)
            }
            offset += count
        }
        Glibc.close(fd)
    }

    /// `path` with every byte but letters, digits, `-._~` and `/` as `%XX`, as a file URL wants.
    static func percentEncoded(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }
}

/// Why the artwork file could not be made: the folder or the file, with the system's reason.
enum ArtworkFileError: Error, CustomStringConvertible {
    case cannotCreate(String, String)
    case cannotWrite(String, String)

    var description: String {
        switch self {
        case .cannotCreate(let base, let reason): "cannot make a folder in \(base): \(reason)"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}
