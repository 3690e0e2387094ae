import Glibc

/// Finds shared libraries as the dynamic loader would: the library's RUNPATH ($ORIGIN expanded),
/// LD_LIBRARY_PATH, the folders of /etc/ld.so.conf (and what it includes), the system folders.
struct LibraryResolver: Sendable {
    static let shared = LibraryResolver()

    private let folders: [String]

    init() {
        var folders = (getenv("LD_LIBRARY_PATH").map { String(cString: $0) } ?? "").split(separator: ":").map(String.init)
        folders += LibraryResolver.configured("/etc/ld.so.conf", depth: 0)
        #if arch(x86_64)
        let triple = "x86_64-linux-gnu"
        #else
        let triple = "aarch64-linux-gnu"
        #endif
        folders += ["/lib/\(triple)", "/usr/lib/\(triple)", "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib"]
        self.folders = folders
    }

    func finds(_ name: String, searchPath: [String], origin: String) -> Bool {
        if name.contains("/") { return access(name, R_OK) == 0 }
        let own = searchPath.map { $0.replacingOrigin(with: origin) }
        return (own + folders).contains { access($0 + "/" + name, R_OK) == 0 }
    }

    /// The folders an ld.so.conf file lists, following `include` globs.
    private static func configured(_ path: String, depth: Int) -> [String] {
        guard depth < 4, let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var folders: [String] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line).split(separator: "#").first.map { $0.trimmingWhitespace() } ?? ""
            if text.hasPrefix("include ") {
                var matches = glob_t()
                defer { globfree(&matches) }
                guard glob(String(text.dropFirst(8)).trimmingWhitespace(), 0, nil, &matches) == 0 else { continue }
                for index in 0..<Int(matches.gl_pathc) {
                    if let match = matches.gl_pathv[index] { folders += configured(String(cString: match), depth: depth + 1) }
                }
            } else if text.hasPrefix("/") {
                folders.append(text)
            }
        }
        return folders
    }
}

extension StringProtocol {
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" || $0 == "\n" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\n" }.reversed())
    }

    fileprivate func replacingOrigin(with origin: String) -> String {
        var text = String(self)
        for token in ["${ORIGIN}", "$ORIGIN"] {
            while let range = text.firstRange(of: token) { text.replaceSubrange(range, with: origin) }
        }
        return text
    }
}
