import Glibc

/// The folder a plugin may write, `<root>/<id>`, kept across its restarts and the runtime's: the
/// root is made 0711 (others pass through to their own folder but cannot list it), each plugin's
/// folder 0700.
package enum DataFolder {
    /// Makes `<root>/<id>` (and `root`) when missing and returns it.
    package static func make(root: String, id: String) throws(DataFolderError) -> String {
        // Made part by part from "/": a relative root would be made at the top of the file system.
        guard root.hasPrefix("/") else { throw .cannotMake(root, "not an absolute path") }
        var folder = ""
        for part in root.split(separator: "/") {
            folder += "/\(part)"
            if mkdir(folder, 0o755) != 0 && errno != EEXIST { throw .cannotMake(folder, String(cString: strerror(errno))) }
        }
        var info = stat()
        guard lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { throw .cannotMake(folder, "not a folder") }
        guard info.st_uid == geteuid(), info.st_mode & 0o022 == 0 else { throw .unsafe(folder) }
        if info.st_mode & 0o777 != 0o711 { chmod(folder, 0o711) }
        let own = "\(folder)/\(id)"
        if mkdir(own, 0o700) != 0 && errno != EEXIST { throw .cannotMake(own, String(cString: strerror(errno))) }
        guard lstat(own, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { throw .cannotMake(own, "not a folder") }
        return own
    }
}

/// Why a plugin gets no data folder.
package enum DataFolderError: Error, CustomStringConvertible {
    case cannotMake(String, String)
    case unsafe(String)

    package var description: String {
        switch self {
        case .cannotMake(let folder, let reason): "cannot make \(folder): \(reason)"
        case .unsafe(let folder): "\(folder) is another user's or writable by group or others; choose a folder of your own for dataDirectory"
        }
    }
}
