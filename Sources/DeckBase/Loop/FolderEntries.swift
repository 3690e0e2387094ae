import Glibc

/// What a folder holds, by name.
public enum FolderEntries {
    /// The names in `folder` (without `.` and `..`), in the order the file system gives them; nil
    /// when it cannot be read.
    public static func names(in folder: String) -> [String]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
