import CMalloc
import DeckSDK
import FoundationEssentials
import Glibc
import MediaPlayback
import Synchronization

/// Scans the media folders off the loop, reading only files that changed since the saved index,
/// then measures the loudness of what has no ReplayGain tags, album by album. Each step's result
/// reaches the loop through `take()`, so the library is browsable while it scans. It then watches
/// the folders and the mount table, and scans again when they change (a file copied in, a USB
/// stick mounted).
final class LibraryScanner: @unchecked Sendable {  // `thread`, `changes` and `logToken` are set and cleared on the loop thread only, around the thread's life, `lastPublished`, `warnedUnwatched` and `failures` used on the scan thread only; the rest is immutable or locked.
    struct Progress: Sendable {
        var tracks: [Track]
        var scanning: Bool
        var measuring: Bool
        var problems: [String]
        /// The browse tree over `tracks`, built here, off the loop (10,000 tracks take ~100 ms).
        var tree: LibraryTree? = nil
    }

    static let maxDepth = 24
    static let firstBatch = 500
    /// Problems logged one by one in a scan; the summary counts the rest, so a folder of broken
    /// files neither floods the log nor gets the summary suppressed by the runtime's log budget.
    static let maxLoggedProblems = 20

    let folders: [String]
    let indexPath: String?
    private let host: DeckHost
    private let latest = Mutex<Progress?>(nil)
    /// Rows per level of the tree, as the display's limits say (set from the loop).
    let limit = Atomic<Int>(100)
    private var cancellation = Cancellation()
    private var thread: WorkerThread?
    private var changes: FileChangeWatch?
    /// While it runs, what FFmpeg says on its thread goes to the Library's log.
    private var logToken: Int?
    private var lastPublished = 0.0
    private var warnedUnwatched = false
    /// The files the last scan could not read, with their signatures then and why.
    private var failures: [String: (signature: [Int], problem: String)] = [:]

    init(folders: [String], indexPath: String?, host: DeckHost) {
        self.folders = folders
        self.indexPath = indexPath
        self.host = host
    }

    /// The index saved by the last scan (empty when there is none). A track it holds that no
    /// scan could have written (a damaged or edited file) is left out, so its file is read again.
    static func savedIndex(_ path: String?) -> [Track] {
        guard let path, let bytes = FileBytes.read(path, maxBytes: 256 << 20) else { return [] }
        return Track.groupingAlbumsByFolder(((try? JSONDecoder().decode([Track].self, from: Data(bytes))) ?? []).filter(\.isPlausible))
    }

    func start(known: [Track]) {
        guard thread == nil else { return }
        cancellation = Cancellation()
        let changes = FileChangeWatch()
        if changes == nil { host.log(.warning, "no pipe to watch the media folders with: changes show at the next start") }
        self.changes = changes
        let token = FFmpegLog.start(host)
        logToken = token
        thread = WorkerThread.start(background: true) { [self] in
            FFmpegLog.attribute(to: token)
            run(known: known, changes: changes)
        }
        if thread == nil { host.log(.error, "no thread to scan the library") }
    }

    /// Stops the scan and waits for its thread (which uses the host).
    func shutDown() {
        cancellation.cancel()
        changes?.wake()
        thread?.join()
        thread = nil
        changes = nil
        logToken.map(FFmpegLog.stop)
        logToken = nil
    }

    /// The newest progress since the last call (loop thread).
    func take() -> Progress? { latest.withLock { progress in defer { progress = nil }; return progress } }

    /// Hands `progress` to the loop with a tree built over it, at most once a second unless
    /// `force`d: each tree is built over every track so far, so a batch every 500 files made a
    /// scan of 50,000 quadratic (23 s).
    private func publish(_ progress: Progress, force: Bool = true) {
        guard force || Monotonic.seconds - lastPublished >= 1 else { return }
        lastPublished = Monotonic.seconds
        var progress = progress
        progress.tracks = Track.groupingAlbumsByFolder(progress.tracks)
        progress.tree = LibraryTree(tracks: progress.tracks, folders: folders, limit: limit.load(ordering: .relaxed))
        latest.withLock { $0 = progress }
        try? host.requestCallback()
    }

    /// Scans, then scans again at each change while it is not cancelled; the loop hears of a
    /// scan again only when it found something else.
    private func run(known: [Track], changes: FileChangeWatch?) {
        var known = known, problems: [String] = [], first = true
        while !cancellation.isCancelled {
            // Watched before they are read: the folders that hold the media folders, so one
            // created later is seen, and the mounts, so a stick mounted there is.
            if let changes {
                let watched = folders.map { changes.add(folder: FileBytes.folder(of: $0), only: [FileBytes.name(of: $0)]) }
                if !changes.addMounts(around: folders) || (!folders.isEmpty && !watched.contains(true)) { warnUnwatched("the media folders (inotify, /proc/self/mountinfo)") }
            }
            guard var progress = scan(known: known, first: first, changes: changes) else { return }
            progress.tracks = Track.groupingAlbumsByFolder(progress.tracks)
            if first || progress.tracks != known || progress.problems != problems {
                progress.scanning = false
                progress.measuring = progress.tracks.contains { $0.loudness == nil }
                publish(progress)
                save(progress.tracks)
                measure(&progress)
            }
            known = progress.tracks
            problems = progress.problems
            first = false
            guard let changes else { return }
            changes.wait()
        }
    }

    /// Reads the folders, each file that changed since `known` and reusing the rest; the first
    /// scan hands its first files over at once and the rest once a second. nil when cancelled.
    private func scan(known: [Track], first: Bool, changes: FileChangeWatch?) -> Progress? {
        let started = Monotonic.seconds
        let previous = Dictionary(known.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        var progress = Progress(tracks: [], scanning: true, measuring: false, problems: [])
        var read = 0, reused = 0
        lastPublished = Monotonic.seconds
        var visited = Set<[Int]>(), unwatched = 0, failed: [String: (signature: [Int], problem: String)] = [:]
        var logged = 0, unlogged = 0
        func report(_ problem: String) {
            progress.problems.append(problem)
            if logged < LibraryScanner.maxLoggedProblems {
                host.log(.warning, problem)
                logged += 1
            } else {
                unlogged += 1
            }
        }
        func visit(_ folder: String, depth: Int) {
            guard !cancellation.isCancelled else { return }
            guard depth <= LibraryScanner.maxDepth else {
                return report("skipped the folder \(folder): it is more than \(LibraryScanner.maxDepth) folders below its media folder")
            }
            let watched = changes?.add(folder: folder) ?? true
            guard let directory = opendir(folder) else {
                report("cannot read the folder \(folder): \(String(cString: strerror(errno)))")
                return
            }
            if !watched { unwatched += 1 }
            var names: [(name: String, bytes: [UInt8]?)] = []  // bytes: those of a name that is not UTF-8 text
            while let entry = readdir(directory) {
                let bytes = FileBytes.entryName(entry)
                let name = String(decoding: bytes, as: UTF8.self)
                if !name.hasPrefix(".") { names.append((name, String(validating: bytes, as: UTF8.self) == nil ? bytes : nil)) }
            }
            closedir(directory)
            /// A music file that cannot be read: a problem, reported the first time it is met.
            func skip(_ path: String, _ signature: [Int], _ reason: String) {
                let problem = "skipped \(path): \(reason)"
                if failures[path]?.problem != problem { report(problem) } else { progress.problems.append(problem) }
                failed[path] = (signature, problem)
            }
            for (name, bytes) in names.sorted(by: { $0.name < $1.name }) {
                let path = "\(folder)/\(name)"
                // A path is text here and for FFmpeg's callers: a name that is not UTF-8 cannot be opened.
                if let bytes {
                    if Track.isMusic(name) {
                        skip(path, [], "its name is not UTF-8 text (\u{FFFD} marks the bytes); rename the file")
                    } else if LibraryScanner.isFolder(Array(folder.utf8) + [UInt8(ascii: "/")] + bytes) {
                        report("skipped the folder \(path) and what it holds: its name is not UTF-8 text (\u{FFFD} marks the bytes); rename it")
                    }
                    continue
                }
                var info = stat()
                guard stat(path, &info) == 0 else {
                    if Track.isMusic(name) { skip(path, [], String(cString: strerror(errno))) }
                    continue
                }
                if info.st_mode & S_IFMT == S_IFDIR {
                    if visited.insert(FileBytes.identity(info)).inserted { visit(path, depth: depth + 1) }
                    continue
                }
                guard Track.isMusic(name) else { continue }
                guard info.st_mode & S_IFMT == S_IFREG else {
                    skip(path, [], "it is \(LibraryScanner.kind(of: info.st_mode)), not a regular file: only files are played")
                    continue
                }
                let signature = [Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_size)]
                if info.st_size == 0 {
                    skip(path, signature, "it is empty (0 bytes): a copy not made yet, or one that failed")
                } else if let old = previous[path], old.signature == signature {
                    progress.tracks.append(old)
                    reused += 1
                } else if let failure = failures[path], failure.signature == signature {
                    progress.problems.append(failure.problem)  // unchanged since it failed: not tried again nor logged again
                    failed[path] = failure
                } else {
                    do {
                        progress.tracks.append(try Track(path: path, signature: signature))
                        read += 1
                    } catch {
                        skip(path, signature, "\(error)")
                    }
                }
                // The first files at once, so the driver has something to choose from; a scan
                // again shows nothing until it is whole.
                if first { publish(progress, force: read + reused == LibraryScanner.firstBatch) }
            }
        }
        // A folder reached twice (a link back up to a media folder, one media folder inside another) is read once.
        for folder in folders {
            var info = stat()
            if stat(folder, &info) == 0, !visited.insert(FileBytes.identity(info)).inserted { continue }
            visit(folder, depth: 0)
        }
        guard !cancellation.isCancelled else { return nil }
        failures = failed
        if unwatched > 0 { warnUnwatched("\(unwatched) folders (fs.inotify.max_user_watches)") }
        if first || read > 0 || unlogged > 0 || progress.tracks.count != known.count {
            host.log(.info, "library: \(progress.tracks.count) tracks (\(read) read, \(reused) unchanged) in "
                     + "\(Int((Monotonic.seconds - started) * 1000)) ms; \(progress.problems.count) problems"
                     + (unlogged > 0 ? " (\(unlogged) new ones not logged: only the first \(LibraryScanner.maxLoggedProblems) of a scan are)" : ""))
        }
        return progress
    }

    /// Whether the path `bytes` (which need not be UTF-8) names a folder, links followed.
    static func isFolder(_ bytes: [UInt8]) -> Bool {
        var info = stat()
        let found = (bytes + [0]).withUnsafeBufferPointer { path in path.withMemoryRebound(to: CChar.self) { stat($0.baseAddress!, &info) } }
        return found == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// What a file that is not a regular one is, in words.
    static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "not a file"
        }
    }

    /// Says once that changes in `what` show only at the next start.
    private func warnUnwatched(_ what: String) {
        guard !warnedUnwatched else { return }
        warnedUnwatched = true
        host.log(.warning, "cannot watch \(what): what changes there shows at the next start")
    }

    /// Measures, album by album, the tracks that carry no loudness yet.
    private func measure(_ progress: inout Progress) {
        let albums = Dictionary(grouping: progress.tracks.indices.filter { progress.tracks[$0].loudness == nil }) { progress.tracks[$0].albumKey }
        for (_, indexes) in albums.sorted(by: { $0.key < $1.key }) {
            let scan = LoudnessScan()
            for index in indexes {
                guard !cancellation.isCancelled else { return }
                progress.tracks[index].loudness = scan.measure(progress.tracks[index].path, cancellation: cancellation)
            }
            let album = scan.albumLoudness
            for index in indexes { progress.tracks[index].albumLoudness = album }
            publish(progress, force: false)
        }
        progress.measuring = false
        publish(progress)
        save(progress.tracks)
        if !albums.isEmpty { host.log(.info, "library: loudness measured for \(albums.values.map(\.count).reduce(0, +)) tracks") }
    }

    /// Writes the index, then gives back to the system the pages the scan's trees and the
    /// encoding freed (a host holding 10,000 tracks: 72 → 54 MiB resident).
    private func save(_ tracks: [Track]) {
        defer { malloc_trim(0) }
        guard let indexPath, let data = try? JSONEncoder().encode(tracks) else { return }
        if let problem = FileBytes.write(Array(data), to: indexPath) { host.log(.warning, "cannot save the library index \(indexPath): \(problem)") }
    }
}
