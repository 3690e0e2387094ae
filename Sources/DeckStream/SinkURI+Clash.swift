import Glibc

extension SinkURI {
    /// Why this sink may not open beside the `open` ones: it would write the file or FIFO one of
    /// them writes (two writers interleave their pages into a file no player reads), send to the
    /// address one sends to, or listen where one listens.
    public func clash(with open: [SinkInfo]) -> String? {
        for sink in open {
            guard let other = try? SinkURI(sink.uri) else { continue }  // an embedder's own sink
            switch (self, other) {
            case (.file(let path, _), .file(let otherPath, _)) where SinkURI.sameFile(path, otherPath):
                return "sink \(sink.id) writes \(otherPath) already: two writers would interleave their pages"
            case (.rtp(let host, let port, _, _), .rtp(let otherHost, let otherPort, _, _)) where host == otherHost && port == otherPort:
                return "sink \(sink.id) sends to \(host):\(port) already: its receiver would get two streams"
            case (.http(let host, let port, _), .http(let otherHost, let otherPort, _)) where port != 0 && host == otherHost && port == otherPort:
                return "sink \(sink.id) listens on \(host):\(port) already"
            default: continue
            }
        }
        return nil
    }

    /// Whether both paths name one existing file (through links, `..` or another spelling).
    private static func sameFile(_ path: String, _ other: String) -> Bool {
        var first = stat(), second = stat()
        return stat(path, &first) == 0 && stat(other, &second) == 0 && first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}
