import Glibc

/// A path made absolute against the working directory when it is read, so that it names the same
/// place for a plugin host (which runs in a folder of its own) and in folders made part by part.
public enum AbsolutePath {
    /// `path` when it starts with `/`, else the working directory joined with it (`.` is the
    /// directory itself); `path` unchanged when the working directory cannot be read.
    public static func resolve(_ path: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard let directory = getcwd(&buffer, buffer.count).map({ String(cString: $0) }) else { return path }
        let relative = path == "." ? "" : path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        if relative.isEmpty { return directory }
        return (directory == "/" ? "" : directory) + "/" + relative
    }

    /// `path` with every link, `.` and `..` resolved (realpath); nil when it does not exist.
    public static func real(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether the absolute path `path` is `folder` or lies below it (by name: resolve links first).
    public static func path(_ path: String, isWithin folder: String) -> Bool {
        folder == "/" || path == folder || path.hasPrefix(folder + "/")
    }
}
