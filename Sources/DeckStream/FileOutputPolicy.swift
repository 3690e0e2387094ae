import DeckBase
import Glibc

/// Where file sinks may be created and whether they may replace files.
public struct FileOutputPolicy: Sendable, Equatable {
    /// The folder that file sinks added by a client (`sinks.add`) must be in; nil refuses them.
    /// Sinks from the command line or the config file may be anywhere the runtime's user can write.
    public var directory: String?
    /// Replace an existing regular file (never a link, FIFO or device) instead of refusing.
    public var overwrite = false

    public init() {}

    /// The path a client's file sink may use: a bare name or a path inside `directory` (no `..`,
    /// no link leading out of it); the final name is opened without following links.
    public func confine(_ path: String, uri: String) throws(SinkError) -> String {
        guard let directory else {
            throw .cannotOpen(uri, "clients may write files (file sinks, SDP files) only inside an output folder; the integrator sets files.directory (or --output-dir)")
        }
        if let problem = directoryProblem { throw .cannotOpen(uri, problem) }
        let full = path.hasPrefix("/") ? path : directory + "/" + path
        let outside = SinkError.cannotOpen(uri, "\(path) is outside the output folder \(directory)")
        guard !full.split(separator: "/").contains("..") else { throw outside }
        let slash = full.lastIndex(of: "/")!
        let folder = slash == full.startIndex ? "/" : String(full[..<slash])
        guard let realFolder = AbsolutePath.real(folder), let realDirectory = AbsolutePath.real(directory) else {
            throw .cannotOpen(uri, "the folder \(folder) does not exist")
        }
        guard AbsolutePath.path(realFolder, isWithin: realDirectory) else { throw outside }
        return (realFolder == "/" ? "" : realFolder) + full[slash...]
    }

    /// Why clients' files cannot go to `directory` now: it is missing or not a folder; nil when it
    /// can take them, or when none is set.
    public var directoryProblem: String? {
        guard let directory else { return nil }
        var info = stat()
        guard stat(directory, &info) == 0 else {
            return "the output folder \(directory) (files.directory) cannot be used: \(String(cString: strerror(errno)))"
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "the output folder \(directory) (files.directory) is not a folder" }
        return nil
    }

    /// The path a client's SDP file may take (it is written beside and renamed over the path):
    /// confined as a file sink is, and an existing file replaced only when it is a regular file and
    /// `overwrite` allows it, as a file sink's would be.
    public func confineReplacing(_ path: String, uri: String) throws(SinkError) -> String {
        let confined = try confine(path, uri: uri)
        var info = stat()
        guard lstat(confined, &info) == 0 else { return confined }
        switch info.st_mode & S_IFMT {
        case S_IFREG: guard overwrite else { throw .cannotOpen(uri, LoopFileError.exists(confined).description) }
        case S_IFLNK: throw .cannotOpen(uri, LoopFileError.symbolicLink(confined).description)
        default: throw .cannotOpen(uri, "\(confined) is not a regular file (a folder, FIFO, socket or device)")
        }
        return confined
    }
}
