import DeckBase
import Glibc

/// Hands a plugin's data folder, and everything in it, to the uid its host runs as.
enum DataFolderOwner {
    /// Makes `uid` the owner of `folder` and what it holds (symbolic links themselves, never what
    /// they point at); what could not be changed, or nil.
    static func give(_ folder: String, to uid: UInt32) -> String? {
        var info = stat()
        guard lstat(folder, &info) == 0 else { return "cannot stat \(folder): \(String(cString: strerror(errno)))" }
        if info.st_uid == uid && info.st_gid == uid { return nil }
        return change(folder, to: uid, depth: 0)
    }

    private static func change(_ path: String, to uid: UInt32, depth: Int) -> String? {
        guard lchown(path, uid, uid) == 0 else { return "cannot give \(path) to uid \(uid): \(String(cString: strerror(errno)))" }
        var info = stat()
        guard depth < 64, lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        for name in FolderEntries.names(in: path) ?? [] {
            if let problem = change("\(path)/\(name)", to: uid, depth: depth + 1) { return problem }
        }
        return nil
    }
}
