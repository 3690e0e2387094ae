import CFFmpeg
import DeckSDK
import Glibc
import Synchronization

/// Sends FFmpeg's errors to the playing app's log ("FFmpeg mp3float: Header missing"), at most
/// `burst` a minute, instead of stderr: /dev/null in a host process, anonymous lines in deckd's
/// output inline. Each `Player` registers while it runs; the last registered hears them.
enum FFmpegLog {
    static let burst = 20
    static let windowSeconds = 60

    private struct State {
        var hosts: [(token: Int, host: DeckHost)] = []
        var nextToken = 0
        var windowStart: Int?
        var shown = 0
    }

    private static let state = Mutex(State())

    /// Routes FFmpeg's errors to `host` until `stop(_:)` with the token returned.
    static func start(_ host: DeckHost) -> Int {
        state.withLock { state in
            if state.hosts.isEmpty { av_log_set_callback { context, level, format, arguments in FFmpegLog.receive(context, level, format, arguments) } }
            state.nextToken += 1
            state.hosts.append((state.nextToken, host))
            return state.nextToken
        }
    }

    /// Stops routing to the host registered with `token`; its host is not used once this returns.
    static func stop(_ token: Int) {
        state.withLock { state in
            state.hosts.removeAll { $0.token == token }
            if state.hosts.isEmpty {
                av_log_set_callback { context, level, format, arguments in arguments.map { av_log_default_callback(context, level, format, $0) } }
            }
        }
    }

    /// FFmpeg's callback (any thread): an error or worse, formatted without FFmpeg's address prefix.
    private static func receive(_ context: UnsafeMutableRawPointer?, _ level: Int32, _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?) {
        guard level <= AV_LOG_ERROR, let format, let arguments else { return }
        var line = [CChar](repeating: 0, count: 512), prefix: Int32 = 0
        av_log_format_line2(context, level, format, arguments, &line, Int32(line.count), &prefix)
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).trimmingSpaces
        guard !text.isEmpty else { return }
        let component = context.flatMap { pointer in
            pointer.assumingMemoryBound(to: UnsafePointer<AVClass>?.self).pointee?.pointee.item_name.flatMap { $0(pointer) }.map { String(cString: $0) }
        }
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        state.withLock { state in
            guard let host = state.hosts.last?.host else { return }
            if state.windowStart.map({ time.tv_sec - $0 >= windowSeconds }) ?? true { (state.windowStart, state.shown) = (time.tv_sec, 0) }
            state.shown += 1
            if state.shown <= burst {
                host.log(.warning, "FFmpeg \(component ?? "?"): \(text)")
            } else if state.shown == burst + 1 {
                host.log(.warning, "FFmpeg: \(burst) errors this minute; the rest of the minute's are not shown")
            }
        }
    }
}
