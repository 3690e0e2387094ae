import Glibc

/// What a bundle's manifest and library were when the runtime loaded them (device, inode, size,
/// change times), so a restart after a crash can tell that the files changed underneath it.
public struct BundleFingerprint: Equatable, Sendable {
    struct File: Equatable, Sendable {
        var name: String
        var device: UInt64, inode: UInt64, size: Int64
        var modified: Int, changed: Int
    }

    /// The manifest's, then the library's.
    let files: [File]

    /// The fingerprint of `bundle`'s manifest and `library` now; a file that cannot be read counts
    /// as changed.
    public init(bundle: String, library: String) {
        files = ["manifest.json", library].map { name in
            var info = stat()
            guard stat(bundle + "/" + name, &info) == 0 else { return File(name: name, device: 0, inode: 0, size: -1, modified: 0, changed: 0) }
            return File(name: name, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                        modified: info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec,
                        changed: info.st_ctim.tv_sec * 1_000_000_000 + info.st_ctim.tv_nsec)
        }
    }

    /// Whether the bundle lacks what it loads from, with nothing yet to say it was rebuilt: its
    /// manifest is gone, or its library is under a manifest unchanged since `earlier` (a build
    /// that removes the bundle, or its library, before it writes the new one).
    public func isTakenAway(since earlier: BundleFingerprint) -> Bool {
        files[0].size < 0 || (files[1].size < 0 && files[0] == earlier.files[0])
    }

    /// The files that differ from `earlier`, named, or nil when none does.
    public func changes(since earlier: BundleFingerprint) -> String? {
        let changed = zip(earlier.files, files).filter { $0 != $1 }.map { before, now in
            now.size < 0 ? "\(now.name) is gone" : before.inode != now.inode ? "\(now.name) was replaced"
                : "\(now.name) was modified (\(before.size) → \(now.size) bytes)"
        }
        return changed.isEmpty ? nil : changed.joined(separator: ", ")
    }
}
