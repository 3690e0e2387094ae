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

    /// The first folder above `folder` that `uid` may not pass through, named with the fix; nil
    /// when each lets it. A state folder of mode 0700 (or `/root`) would keep every app from its data.
    static func unreachable(_ folder: String, by uid: UInt32) -> String? {
        var above = AtomicFile.split(folder).folder
        while true {
            var info = stat()
            guard stat(above, &info) == 0 else { return "cannot stat \(above): \(String(cString: strerror(errno)))" }
            // The host's group is its uid's number (`give`), and it has no others.
            let search: mode_t = info.st_uid == uid ? 0o100 : info.st_gid == uid ? 0o010 : 0o001
            if info.st_mode & search == 0 {
                return "its host (uid \(uid)) cannot reach \(folder): \(above) has mode \(String(info.st_mode & 0o777, radix: 8)), "
                    + "which lets no other user pass through; run 'chmod o+x \(above)' or choose a dataDirectory others may pass through"
            }
            guard above != "/" else { return nil }
            above = AtomicFile.split(above).folder
        }
    }

    private static func change(_ path: String, to uid: UInt32, depth: Int) -> String? {
        guard lchown(path, uid, uid) == 0 else { return "cannot give \(path) to uid \(uid): \(String(cString: strerror(errno)))" }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return "cannot read \(path): \(String(cString: strerror(errno)))" }
        return changeEntries(of: folder, at: path, to: uid, depth: 1)
    }

    /// Gives what the folder open as `folder` (at `path`) holds to `uid`, by the names as its entries
    /// hold them: an app may name its files in bytes that are not UTF-8. Closes `folder`.
    private static func changeEntries(of folder: Int32, at path: String, to uid: UInt32, depth: Int) -> String? {
        defer { close(folder) }
        guard let names = FolderEntries.rawNames(inOpen: folder) else { return "cannot read \(path): \(String(cString: strerror(errno)))" }
        for name in names {
            let shown = "\(path)/\(FolderEntries.text(of: name))"
            guard fchownat(folder, name, uid, uid, AT_SYMLINK_NOFOLLOW) == 0 else {
                return "cannot give \(shown) to uid \(uid): \(String(cString: strerror(errno)))"
            }
            var info = stat()
            guard depth < 64, fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            let child = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard child >= 0 else { return "cannot read \(shown): \(String(cString: strerror(errno)))" }
            if let problem = changeEntries(of: child, at: shown, to: uid, depth: depth + 1) { return problem }
        }
        return nil
    }
}
