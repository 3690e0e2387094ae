import DeckBase
import Glibc

/// A scratch folder under /tmp, removed on deinit, with the few file operations the benches need.
final class TemporaryFolder {
    let path: String

    init() throws {
        // mkdtemp replaces the trailing six X's with a unique suffix.
        var template = Array(("/tmp/deck-bench-" + String(repeating: "X", count: 6)).utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("mkdtemp failed") }
        path = String(cString: made)
        chmod(path, 0o755)  // bundles in it must be readable by plugins' own uids
    }

    deinit { _ = TemporaryFolder.shell("rm -rf '\(path)'") }

    static func list(_ directory: String) throws -> [String] {
        guard let names = FolderEntries.names(in: directory) else { throw BenchError("cannot read \(directory)") }
        return names
    }

    static func copyFile(_ source: String, to target: String) throws {
        guard shell("cp '\(source)' '\(target)' && chmod go-w '\(target)'") == 0 else {
            throw BenchError("cannot copy \(source)")
        }
    }

    static func write(_ text: String, to path: String) throws {
        guard let file = fopen(path, "w") else { throw BenchError("cannot write \(path)") }
        fputs(text, file)
        fclose(file)
    }

    @discardableResult
    static func shell(_ command: String) -> Int32 {
        let status = system(command)
        return (status >> 8) & 0xff
    }
}
