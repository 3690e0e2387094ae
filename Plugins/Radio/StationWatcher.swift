import Glibc
import DeckSDK
import MediaPlayback
import Synchronization

/// Reads the station list and its pictures off the loop, and again whenever the file changes or a
/// preferred one appears (as inotify tells); each result reaches the loop through `take()`. The
/// list goes first; pictures named by URL follow as they are fetched, so a slow picture server
/// never holds a list back.
final class StationWatcher: @unchecked Sendable {  // `thread`, `changes` and `cancellation` are set and cleared on the loop thread only, around the thread's life; `fetched` is the thread's alone; the rest is immutable, atomic or locked.
    enum Update: Sendable {
        /// The list, the pictures known yet, its file and the stations left out of it (and why).
        case loaded(StationList, [String: [UInt8]], from: String, skipped: [String])
        /// More pictures of the list last loaded, by station id.
        case pictures([String: [UInt8]])
        case failed(String)
    }

    static let maxPictureBytes = 512 * 1024
    /// The most a list's pictures may hold together, each picture counted once however many
    /// stations show it; past it the rest show none (a list of 1,000 stations could otherwise hold
    /// 500 MiB in the Radio's process).
    static let maxPictureTotalBytes = 64 << 20

    /// The bytes a list's pictures hold so far, against `maxPictureTotalBytes`.
    struct PictureBudget {
        private var counted: Set<String> = []
        private var total = 0
        /// Set once a picture did not fit.
        private(set) var isSpent = false

        /// Whether `count` bytes of the picture at `url` fit; one counted before always does.
        mutating func admit(_ url: String, _ count: Int) -> Bool {
            if counted.contains(url) { return true }
            guard total + count <= StationWatcher.maxPictureTotalBytes else {
                isSpent = true
                return false
            }
            counted.insert(url)
            total += count
            return true
        }
    }

    /// The files the list may come from, preferred first: the first that exists is read.
    let candidates: [String]
    private let host: DeckHost
    private let latest = Mutex<Update?>(nil)
    /// Ends the watch and any picture being fetched (a server that never answers would hold
    /// the shutdown for its timeout, 10 s a picture).
    private var cancellation = Cancellation()
    private var changes: FileChangeWatch?
    private var thread: WorkerThread?
    /// While the thread runs, FFmpeg's errors fetching pictures go to the Radio's log.
    private var logToken: Int?
    /// Pictures fetched, by URL, kept while the list names them: a list changed is not fetched again.
    private var fetched: [String: [UInt8]] = [:]

    init(candidates: [String], host: DeckHost) {
        self.candidates = candidates
        self.host = host
    }

    /// Reads the list now (with the pictures on this machine), then watches it from a thread of
    /// its own, which also fetches pictures named by URL.
    func start() {
        guard thread == nil else { return }
        cancellation = Cancellation()
        var budget = PictureBudget()
        let path = path, signature = FileBytes.signature(path)  // taken before the read: a change meanwhile is read again
        let first = read(&budget)
        latest.withLock { $0 = first }
        guard let changes = FileChangeWatch() else { return host.log(.error, "no pipe to watch \(path) with") }
        self.changes = changes
        let token = FFmpegLog.start(host)
        logToken = token
        thread = WorkerThread.start(background: true) { [self, budget] in
            FFmpegLog.attribute(to: token)
            watch(changes, first: (path, signature, first, budget))
        }
        if thread == nil { host.log(.error, "no thread to watch \(path)") }
    }

    /// Stops watching and waits for the thread (which uses the host).
    func shutDown() {
        cancellation.cancel()
        changes?.wake()
        thread?.join()
        thread = nil
        changes = nil
        logToken.map(FFmpegLog.stop)
        logToken = nil
    }

    /// The newest list or failure since the last call, with the pictures fetched since (loop thread).
    func take() -> Update? { latest.withLock { update in defer { update = nil }; return update } }

    /// Hands `update` to the loop; pictures join a list or pictures not taken yet.
    private func publish(_ update: Update) {
        latest.withLock { pending in
            switch (pending, update) {
            case (.loaded(let list, let pictures, let path, let skipped)?, .pictures(let more)):
                pending = .loaded(list, pictures.merging(more) { $1 }, from: path, skipped: skipped)
            case (.pictures(let pictures)?, .pictures(let more)):
                pending = .pictures(pictures.merging(more) { $1 })
            default:
                pending = update
            }
        }
        try? host.requestCallback()
    }

    /// The list's file now: the first candidate that exists, else the last.
    var path: String { candidates.first { FileBytes.signature($0) != nil } ?? candidates.last ?? "stations.json" }

    /// Fetches the pictures of the list `start()` read, then reads the list again whenever its
    /// file changes, fetching those pictures too.
    private func watch(_ changes: FileChangeWatch, first: (path: String, signature: [Int]?, update: Update, budget: PictureBudget)) {
        var seen = (path: first.path, signature: first.signature)
        var pending: (update: Update, budget: PictureBudget)? = (first.update, first.budget)
        while !cancellation.isCancelled {
            // Watched before it looks, so a change made meanwhile ends the wait; a folder not there
            // yet is looked for twice a second.
            let folders = candidates.map { changes.add(folder: FileBytes.folder(of: $0), only: [FileBytes.name(of: $0)]) }
            candidates.forEach(changes.add(file:))
            let path = path, signature = FileBytes.signature(path)
            if seen.path != path || seen.signature != signature {
                seen = (path, signature)
                var budget = PictureBudget()
                let update = read(&budget)
                publish(update)
                pending = (update, budget)
            }
            if let pass = pending {
                pending = nil
                var budget = pass.budget
                if case .loaded(let list, _, _, _) = pass.update {
                    // A list changed meanwhile ends the pass, even in the middle of a fetch that hangs.
                    fetchPictures(of: list, Cancellation(with: cancellation) { FileBytes.signature(path) != signature }, &budget)
                }
                if budget.isSpent {
                    host.log(.warning, "the station pictures past \(StationWatcher.maxPictureTotalBytes >> 20) MiB together are left out: "
                             + "the stations after them show none")
                }
            }
            changes.wait(atMost: folders.allSatisfy { $0 } ? nil : 500)
        }
    }

    private func read(_ budget: inout PictureBudget) -> Update {
        let path = path
        do {
            let (list, skipped) = try StationList.load(path)
            return .loaded(list, pictures(list, &budget), from: path, skipped: skipped)
        } catch {
            return .failed(error.description)
        }
    }

    /// Each station's picture on this machine, or fetched before, when it can be read.
    private func pictures(_ list: StationList, _ budget: inout PictureBudget) -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for station in list.station {
            guard let url = station.imageURL, !url.isEmpty else { continue }
            let bytes = url.contains("://") ? fetched[url] : StationWatcher.picture(FileBytes.read(url, maxBytes: StationWatcher.maxPictureBytes))
            if let bytes, budget.admit(url, bytes.count) { result[station.id] = bytes }
        }
        return result
    }

    /// Fetches the pictures `list` names by URL and has not fetched yet, handing them over as they
    /// come (the first at once, then at most once a second), until `pass` is cancelled.
    private func fetchPictures(of list: StationList, _ pass: Cancellation, _ budget: inout PictureBudget) {
        let named = Set(list.station.compactMap(\.imageURL))
        fetched = fetched.filter { named.contains($0.key) }
        var tried: Set<String> = [], arrived: [String: [UInt8]] = [:], handed = -Double.infinity
        // A server that let a picture wait out the timeout is not asked for the list's others.
        var stalled: Set<String> = []
        for station in list.station {
            if pass.isCancelled || budget.isSpent { break }
            guard let url = station.imageURL, url.contains("://") else { continue }
            let server = StationWatcher.server(of: url)
            if fetched[url] == nil, !stalled.contains(server), tried.insert(url).inserted,
               let bytes = StationWatcher.picture(fetch(url, pass, stalled: &stalled)), budget.admit(url, bytes.count) {
                fetched[url] = bytes
                arrived[station.id] = bytes
            } else if tried.contains(url), let bytes = fetched[url] {
                arrived[station.id] = bytes  // a picture several stations share, fetched for this pass
            }
            if !arrived.isEmpty, Monotonic.seconds - handed >= 1 {
                publish(.pictures(arrived))
                arrived = [:]
                handed = Monotonic.seconds
            }
        }
        if !arrived.isEmpty { publish(.pictures(arrived)) }
    }

    /// The picture at `url`; nil when it cannot be had. A server that took a timeout's length to
    /// fail joins `stalled`, and the log says its pictures are left out of this list.
    private func fetch(_ url: String, _ pass: Cancellation, stalled: inout Set<String>) -> [UInt8]? {
        let started = Monotonic.seconds
        do {
            return try RemoteBytes.fetch(url, maxBytes: StationWatcher.maxPictureBytes, cancellation: pass)
        } catch {
            guard error != .cancelled, Monotonic.seconds - started >= StationWatcher.stallSeconds else { return nil }
            let server = StationWatcher.server(of: url)
            stalled.insert(server)
            host.log(.warning, "\(server) did not send a picture within \(Int(StationWatcher.stallSeconds)) s: "
                     + "its other pictures are left out of this list")
            return nil
        }
    }

    /// A fetch that failed after this long waited out FFmpeg's 10 s timeout (or near it).
    static let stallSeconds = 8.0

    /// The scheme and authority of `url` (`http://host:port`): what one server answers for.
    static func server(of url: String) -> String {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else { return url }
        let path = bytes[(colon + 3)...].firstIndex { [UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains($0) }
        return String(decoding: bytes[..<(path ?? bytes.count)], as: UTF8.self)
    }

    /// `bytes` as a picture to hand over: none when empty or cut at `maxPictureBytes`, made smaller
    /// when over 1,200 pixels a side (a logo of few colours is small at any size; the screen is not).
    private static func picture(_ bytes: [UInt8]?) -> [UInt8]? {
        guard let bytes, !bytes.isEmpty, bytes.count < maxPictureBytes else { return nil }
        return CoverImage.fitted(bytes)
    }
}
