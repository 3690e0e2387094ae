import DeckBase

/// A sink address as users write it: `file:PATH.opus` (`file:PATH?pipe` for an existing FIFO or
/// character device, `file:-` for standard output), `http://HOST:PORT/PATH`, `rtp://HOST:PORT?pt=96&sdp=PATH`.
public enum SinkURI: Sendable, Equatable, CustomStringConvertible {
    case file(path: String, pipe: Bool = false)
    case http(host: String, port: Int, path: String)
    case rtp(host: String, port: Int, payloadType: Int, sdpPath: String?)

    /// The path of `file:-`: standard output (`file:/dev/stdout?pipe`).
    public static let standardOutput = "-"

    public init(_ written: String) throws(SinkError) {
        let text = SinkURI.lowercasingScheme(written)
        if text.hasPrefix("file:") {
            var path = String(text.dropFirst(5))
            let pipe = path.hasSuffix("?pipe")
            if pipe { path.removeLast(5) }
            guard !path.isEmpty else { throw .invalidURI(text, "a file sink needs a path, e.g. file:out.opus") }
            // `file:-` is standard output, as `-` is to ffmpeg and opusenc: written when it is a pipe.
            self = path == SinkURI.standardOutput ? .file(path: LoopFile.standardOutputPath, pipe: true) : .file(path: path, pipe: pipe)
        } else if text.hasPrefix("http://") {
            let rest = text.dropFirst(7)
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            let (host, port) = try SinkURI.hostAndPort(String(rest[..<slash]), in: text)
            let path = slash == rest.endIndex ? "/" : String(rest[slash...])
            guard !path.contains("?"), !path.contains(" ") else { throw .invalidURI(text, "the path may not contain '?' or spaces") }
            // What no player could ask for: a fragment is never sent, a malformed escape never matches.
            guard !path.contains("#") else { throw .invalidURI(text, "the path may not contain '#': players do not send what follows it") }
            guard HTTPRequestHead.decoded(path[...]) != nil else {
                throw .invalidURI(text, "a %-escape in the path must be % and two hex digits, of UTF-8 (%C3%BC for ü)")
            }
            self = .http(host: host, port: port, path: path)
        } else if text.hasPrefix("rtp://") {
            let rest = text.dropFirst(6)
            let question = rest.firstIndex(of: "?") ?? rest.endIndex
            let (host, port) = try SinkURI.hostAndPort(String(rest[..<question]), in: text)
            guard port > 0 else { throw .invalidURI(text, "an RTP sink needs a destination port") }
            var payloadType = 96
            var sdpPath: String?
            if question != rest.endIndex {
                var given: Set<String> = []
                for pair in rest[rest.index(after: question)...].split(separator: "&") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2 else { throw .invalidURI(text, "query item '\(pair)' is not key=value") }
                    guard given.insert(parts[0]).inserted else { throw .invalidURI(text, "\(parts[0])= is given twice; give it once") }
                    switch parts[0] {
                    case "pt":
                        guard let value = Int(parts[1]), (96...127).contains(value) else {
                            throw .invalidURI(text, "pt must be a dynamic payload type, 96 to 127")
                        }
                        payloadType = value
                    case "sdp": sdpPath = parts[1]
                    default: throw .invalidURI(text, "unknown query item '\(parts[0])' (known: pt, sdp)")
                    }
                }
            }
            self = .rtp(host: host, port: port, payloadType: payloadType, sdpPath: sdpPath)
        } else {
            throw .invalidURI(text, "expected file:PATH, http://HOST:PORT/PATH or rtp://HOST:PORT?pt=96&sdp=PATH")
        }
    }

    /// `text` with its scheme in lower case (RFC 3986: `HTTP://` is `http://`); the rest as written.
    public static func lowercasingScheme(_ text: String) -> String {
        guard let colon = text.firstIndex(of: ":"), text[..<colon].utf8.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) }),
              text[..<colon].utf8.contains(where: { (65...90).contains($0) }) else { return text }
        return text[..<colon].lowercased() + text[colon...]
    }

    public var description: String {
        switch self {
        case .file(let path, let pipe): "file:\(path)" + (pipe ? "?pipe" : "")
        case .http(let host, let port, let path): "http://\(SinkURI.bracketed(host)):\(port)\(path)"
        case .rtp(let host, let port, let payloadType, let sdp):
            "rtp://\(SinkURI.bracketed(host)):\(port)?pt=\(payloadType)" + (sdp.map { "&sdp=\($0)" } ?? "")
        }
    }

    private static func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    private static func hostAndPort(_ authority: String, in text: String) throws(SinkError) -> (String, Int) {
        var host = authority
        var portText = ""
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURI(text, "an IPv6 address goes in closed brackets, e.g. [::1]:8000") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            guard after.hasPrefix(":") else { throw .invalidURI(text, "expected HOST:PORT") }
            portText = String(after.dropFirst())
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = String(authority[authority.index(after: colon)...])
        } else {
            throw .invalidURI(text, "expected HOST:PORT")
        }
        if host == "localhost" { host = "127.0.0.1" }
        guard !host.contains("["), !host.contains("]") else { throw .invalidURI(text, "a bracket belongs around an IPv6 address only, e.g. [::1]:8000") }
        guard !host.isEmpty, let port = SocketAddress.port(portText[...]) else {
            throw .invalidURI(text, "expected HOST:PORT with a port from 0 to 65535")
        }
        return (host, port)
    }
}

/// Why a sink could not be added, or what went wrong with it later.
public enum SinkError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidURI(String, String)
    case cannotOpen(String, String)
    case noSuchSink(Int)
    case tooMany(Int)
    /// The sink is in another zone than the one whose audio was being routed.
    case otherZone(Int)
    /// The output mixes for no zone of that index.
    case noSuchZone(Int)

    public var description: String {
        switch self {
        case .invalidURI(let uri, let reason): "invalid sink \(uri): \(reason)"
        case .cannotOpen(let uri, let reason): "cannot open sink \(uri): \(reason)"
        case .noSuchSink(let id): "no sink with id \(id)"
        case .tooMany(let limit): "\(limit) sinks are open already (maxSinks); remove one first"
        case .otherZone(let id): "sink \(id) is in another zone; a zone's audio goes only to that zone's sinks"
        case .noSuchZone(let index): "the output mixes for no zone \(index)"
        }
    }
}
