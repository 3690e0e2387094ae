import DeckRuntime
import Glibc

/// The simulator's page: plain HTML, CSS and JavaScript shipped with Deck, read once at start
/// from `<dir of deckd>/simulator` (a build) or `<prefix>/share/deck/simulator` (installed).
struct SimulatorPage {
    struct File {
        var type: String
        var bytes: [UInt8]
    }

    /// The files served, by name; nothing else is ever read.
    static let names = ["index.html": "text/html; charset=utf-8", "simulator.css": "text/css; charset=utf-8",
                        "simulator.js": "text/javascript; charset=utf-8"]

    let folder: String
    private let files: [String: File]

    /// Reads every file from the first candidate folder that holds them all.
    init(candidates: [String]) throws(SimulatorError) {
        for folder in candidates {
            var files: [String: File] = [:]
            for (name, type) in SimulatorPage.names {
                guard let text = SystemFile.read("\(folder)/\(name)", limit: 4 << 20) else { break }
                files[name] = File(type: type, bytes: Array(text.utf8))
            }
            if files.count == SimulatorPage.names.count {
                self.folder = realpath(folder, nil).map { resolved in defer { free(resolved) }; return String(cString: resolved) } ?? folder
                self.files = files
                return
            }
        }
        throw .noPage("its page (\(SimulatorPage.names.keys.sorted().joined(separator: ", "))) is in none of \(candidates.joined(separator: ", "))")
    }

    /// The folders deckd looks in, next to its executable.
    static func defaultCandidates(executableFolder: String) -> [String] {
        [executableFolder + "/simulator", executableFolder + "/../../share/deck/simulator"]
    }

    /// The file a GET for `target` serves (`/` is the page), ignoring any query; nil for any other.
    func file(_ target: String) -> File? {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        return files[path == "/" ? "index.html" : String(path.dropFirst())]
    }
}
