import Glibc

/// What a folder holds, by name.
public enum FolderEntries {
    /// The names in `folder` (without `.` and `..`), in the order the file system gives them; nil
    /// when it cannot be read.
    public static func names(in folder: String) -> [String]? {
        entries(in: folder)?.map(\.name)
    }

    /// The names of the folders in `folder` (not links to one), by the type the directory entry
    /// gives, asked of `lstat` only where it gives none; nil when it cannot be read.
    public static func subfolders(in folder: String) -> [String]? {
        entries(in: folder)?.filter { entry in
            guard entry.type == UInt8(DT_UNKNOWN) else { return entry.type == UInt8(DT_DIR) }
            var info = stat()
            return lstat("\(folder)/\(entry.name)", &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        }.map(\.name)
    }

    /// The names in the folder open as `descriptor`, as its entries hold them (bytes that need not
    /// be UTF-8, each ending in NUL), for the `*at` calls; nil when it cannot be read. `descriptor`
    /// stays open.
    public static func rawNames(inOpen descriptor: Int32) -> [[CChar]]? {
        let copy = dup(descriptor)
        guard copy >= 0 else { return nil }
        guard let directory = fdopendir(copy) else {
            close(copy)
            return nil
        }
        defer { closedir(directory) }
        var names: [[CChar]] = []
        while let entry = readdir(directory) {
            let name = nameStart(of: entry)
            let bytes = Array(UnsafeBufferPointer(start: name, count: strlen(name) + 1))
            if bytes != [46, 0] && bytes != [46, 46, 0] { names.append(bytes) }
        }
        return names
    }

    /// A name `rawNames` gave, as text: U+FFFD in place of bytes that are not UTF-8.
    public static func text(of rawName: [CChar]) -> String {
        String(decoding: rawName.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The name in a directory entry, read up to its NUL: not as the whole 256-byte `d_name`, which
    /// for readdir's last entry runs past the end of its buffer.
    static func name(of entry: UnsafePointer<dirent>) -> String {
        String(cString: nameStart(of: entry))
    }

    private static func nameStart(of entry: UnsafePointer<dirent>) -> UnsafePointer<CChar> {
        (UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \.d_name)!).assumingMemoryBound(to: CChar.self)
    }

    private static func entries(in folder: String) -> [(name: String, type: UInt8)]? {
        guard let directory = opendir(folder) else { return nil }
        defer { closedir(directory) }
        var entries: [(name: String, type: UInt8)] = []
        while let entry = readdir(directory) {
            let name = FolderEntries.name(of: entry)
            if name != "." && name != ".." { entries.append((name, entry.pointee.d_type)) }
        }
        return entries
    }
}
