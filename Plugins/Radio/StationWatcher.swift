import Glibc
import DeckSDK
import MediaPlayback
import Synchronization

/// Reads the station list and its pictures off the loop, and again whenever the file changes or a
/// preferred one appears (as inotify tells); each result reaches the loop through `take()`.
final class StationWatcher: @unchecked Sendable {  // `thread`, `changes` and `cancellation` are set and cleared on the loop thread only, around the thread's life; the rest is immutable, atomic or locked.
    enum Update: Sendable {
        /// The list, its pictures, its file and the stations left out of it (and why).
        case loaded(StationList, [String: [UInt8]], from: String, skipped: [String])
        case failed(String)
    }

    static let maxPictureBytes = 512 * 1024

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

    init(candidates: [String], host: DeckHost) {
        self.candidates = candidates
        self.host = host
    }

    /// Reads the list now (with the pictures on this machine), then watches it from a thread of
    /// its own, which also fetches pictures named by URL.
    func start() {
        guard thread == nil else { return }
        cancellation = Cancellation()
        latest.withLock { $0 = read(remotePictures: false) }
        guard let changes = FileChangeWatch() else { return host.log(.error, "no pipe to watch \(path) with") }
        self.changes = changes
        let token = FFmpegLog.start(host)
        logToken = token
        thread = WorkerThread.start(background: true) { [self] in
            FFmpegLog.attribute(to: token)
            watch(changes)
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

    /// The newest list or failure since the last call (loop thread).
    func take() -> Update? { latest.withLock { update in defer { update = nil }; return update } }

    /// The list's file now: the first candidate that exists, else the last.
    var path: String { candidates.first { FileBytes.signature($0) != nil } ?? candidates.last ?? "stations.json" }

    private func watch(_ changes: FileChangeWatch) {
        var seen: (path: String, signature: [Int]?)?
        while !cancellation.isCancelled {
            // Watched before it looks, so a change made meanwhile ends the wait; a folder not there
            // yet is looked for twice a second.
            let folders = candidates.map { changes.add(folder: FileBytes.folder(of: $0), only: [FileBytes.name(of: $0)]) }
            candidates.forEach(changes.add(file:))
            let path = path, signature = FileBytes.signature(path)
            if seen == nil || seen!.path != path || seen!.signature != signature {
                seen = (path, signature)
                let update = read(remotePictures: true)
                latest.withLock { $0 = update }
                try? host.requestCallback()
            }
            changes.wait(atMost: folders.allSatisfy { $0 } ? nil : 500)
        }
    }

    private func read(remotePictures: Bool) -> Update {
        let path = path
        do {
            let (list, skipped) = try StationList.load(path)
            return .loaded(list, pictures(list, remote: remotePictures), from: path, skipped: skipped)
        } catch {
            return .failed(error.description)
        }
    }

    /// Each station's picture (a file, or with `remote` an http URL), when it can be read.
    private func pictures(_ list: StationList, remote: Bool) -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for station in list.station where !cancellation.isCancelled {
            guard let url = station.imageURL, !url.isEmpty, remote || !url.contains("://") else { continue }
            let bytes = url.contains("://") ? try? RemoteBytes.fetch(url, maxBytes: StationWatcher.maxPictureBytes, cancellation: cancellation)
                                             : FileBytes.read(url, maxBytes: StationWatcher.maxPictureBytes)
            if let bytes, !bytes.isEmpty, bytes.count < StationWatcher.maxPictureBytes { result[station.id] = bytes }
        }
        return result
    }
}
