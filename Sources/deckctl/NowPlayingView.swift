import DeckBase
import Glibc

/// How deckctl shows now playing: a line through a format, or two lines for people; `--follow`
/// redraws one live line on a terminal (elapsed extrapolated between notifications) and prints a
/// line per change into a pipe.
struct NowPlayingView {
    var format: NowPlayingFormat?
    var json: Bool

    /// Shows `state`; returns the line printed, so `follow` can skip one that did not change.
    @discardableResult
    func print(_ state: JSONDocument.Value, age: Double, live: Bool, unless previous: String? = nil) -> String? {
        if json { return show(state.text(pretty: false), unless: previous) }
        let fields = NowPlayingView.fields(state, age: age)
        if let format { return show(format.render(fields), unless: previous) }
        guard state["owner"].string != nil else { return show("nothing owns now playing", unless: previous) }
        let artist = fields["artist"]!.isEmpty ? "" : " — \(fields["artist"]!)"
        let title = "\(fields["title"]!.isEmpty ? "(untitled)" : fields["title"]!)\(artist)"
        let position = "\(fields["status"]!)  \(fields["position"]!)" + (fields["duration"]!.isEmpty ? "" : " / \(fields["duration"]!)")
        if live {
            let bar = NowPlayingView.bar(elapsed: Double(fields["elapsed"]!) ?? 0, duration: state["duration"].number)
            Swift.print("\r\u{1B}[2K\(title)  \(bar)\(position)", terminator: "")
            return nil
        }
        return show("\(title)\n\(position)  (\(fields["app"]!))", unless: previous)
    }

    private func show(_ text: String, unless previous: String?) -> String {
        if text != previous { Swift.print(text) }
        return text
    }

    /// Subscribes to `nowPlaying.changed` and shows each state; on a terminal, redraws twice a second.
    func follow(_ session: Session) throws(ClientError) {
        let terminal = isatty(1) == 1 && !json && format == nil
        var state = try session.call("nowPlaying.get")
        var stamp = MonotonicClock.seconds
        var shown = print(state.value, age: 0, live: terminal)
        try ControlClient.flushOutput()
        _ = try session.call("events.subscribe", "{\"topics\":[\"nowPlaying.changed\"]}")
        while true {
            guard let line = try session.readLine(timeoutMilliseconds: terminal ? 500 : -1, following: true) else {
                if !session.isClosed {
                    print(state.value, age: MonotonicClock.seconds - stamp, live: true)
                    try ControlClient.flushOutput()
                    continue
                }
                throw .runtime("deckd closed the connection")  // it stopped: a watcher must not take that for an end
            }
            guard let message = JSONDocument(line), message.value["method"].string == "nowPlaying.changed" else { continue }
            state = JSONDocument.Result(document: message, key: "params")
            stamp = MonotonicClock.seconds
            shown = print(state.value, age: 0, live: terminal, unless: shown)
            try ControlClient.flushOutput()
        }
    }

    /// The values a format may name, elapsed extrapolated by `age` seconds.
    static func fields(_ state: JSONDocument.Value, age: Double) -> [String: String] {
        // What the runtime sends is read as it would be from anyone: brought into MediaTime's range.
        var elapsed = MediaTime(clamping: (state["elapsed"].number ?? 0) + age * (state["rate"].number ?? 0)).seconds
        if let duration = state["duration"].number { elapsed = min(elapsed, duration) }
        return [
            "title": state["title"].string ?? "",
            "artist": state["artists"].elements.compactMap(\.string).joined(separator: ", "),
            "album": state["album"].string ?? "",
            "albumArtist": state["albumArtist"].string ?? "",
            "status": state["playbackState"].string ?? "",
            "position": clock(elapsed),
            "elapsed": String(MediaTime(clamping: max(0, elapsed)).wholeSeconds),
            "duration": state["duration"].number.map(clock) ?? "",
            "app": state["owner"].string ?? "",
            "mediaType": state["mediaType"].string ?? "",
            "queueIndex": state["queueIndex"].int.map { String($0 + 1) } ?? "",
            "queueCount": state["queueCount"].int.map(String.init) ?? "",
        ]
    }

    static func clock(_ seconds: Double) -> String {
        let whole = MediaTime(clamping: max(0, seconds)).wholeSeconds
        let (hours, minutes, rest) = (whole / 3600, whole / 60 % 60, whole % 60)
        let tail = (rest < 10 ? "0" : "") + "\(rest)"
        return hours > 0 ? "\(hours):\(minutes < 10 ? "0" : "")\(minutes):\(tail)" : "\(minutes):\(tail)"
    }

    static func bar(elapsed: Double, duration: Double?) -> String {
        guard let duration, duration > 0 else { return "" }
        let fraction = elapsed / duration
        let filled = fraction.isNaN ? 0 : Int((min(1, max(0, fraction)) * 20).rounded())
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 20 - filled) + "]  "
    }

}

/// A `--format` template: `{{key}}` replaced by a now-playing field, as playerctl's are.
struct NowPlayingFormat {
    static let keys = ["title", "artist", "album", "albumArtist", "status", "position", "elapsed", "duration", "app",
                       "mediaType", "queueIndex", "queueCount"]
    private var parts: [(text: String, key: String?)] = []

    init(_ template: String) throws(ClientError) {
        var rest = Substring(template)
        while let open = rest.firstRange(of: "{{") {
            parts.append((String(rest[..<open.lowerBound]), nil))
            guard let close = rest[open.upperBound...].firstRange(of: "}}") else { throw .usage("--format: \"{{\" without \"}}\"") }
            let key = String(rest[open.upperBound..<close.lowerBound].filter { $0 != " " })
            guard NowPlayingFormat.keys.contains(key) else {
                throw .usage("--format: unknown field \"\(key)\" (known: \(NowPlayingFormat.keys.joined(separator: ", ")))")
            }
            parts.append(("", key))
            rest = rest[close.upperBound...]
        }
        parts.append((String(rest), nil))
    }

    func render(_ fields: [String: String]) -> String {
        parts.map { $0.key.flatMap { fields[$0] } ?? $0.text }.joined()
    }
}
