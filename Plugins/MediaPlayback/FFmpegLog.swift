import CFFmpeg
import DeckSDK
import Glibc
import Synchronization

/// Sends FFmpeg's errors to the app's log ("FFmpeg mp3float (/music/a.mp3): Header missing"), at
/// most `burst` a minute for each registration, instead of stderr: /dev/null in a host process,
/// anonymous lines in deckd's output inline. A `Player` or a scan registers while it runs and marks
/// its thread with the token; a message from an unmarked thread goes to the last registered. A
/// `MediaSource` names the file its thread reads.
public enum FFmpegLog {
    static let burst = 20
    static let windowSeconds = 60

    private struct Registration {
        let token: Int
        let host: DeckHost
        var windowStart: Int?
        var shown = 0
    }

    private struct State {
        var registrations: [Registration] = []
        var nextToken = 0
    }

    private static let state = Mutex(State())
    /// The token of the thread's registration, as a pointer's bits (0: none).
    private static let threadToken: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The file the thread reads, as a retained `FileName` (nil: none); released when the thread ends.
    private static let threadFile: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { $0.map { Unmanaged<FileName>.fromOpaque($0).release() } }
        return key
    }()

    private final class FileName {
        let path: String
        init(_ path: String) { self.path = path }
    }

    /// Routes FFmpeg's errors to `host` until `stop(_:)` with the token returned.
    public static func start(_ host: DeckHost) -> Int {
        state.withLock { state in
            if state.registrations.isEmpty { av_log_set_callback { context, level, format, arguments in FFmpegLog.receive(context, level, format, arguments) } }
            state.nextToken += 1
            state.registrations.append(Registration(token: state.nextToken, host: host))
            return state.nextToken
        }
    }

    /// What FFmpeg says on the calling thread from now on goes to the host registered with `token`.
    public static func attribute(to token: Int) {
        pthread_setspecific(threadToken, UnsafeRawPointer(bitPattern: token))
    }

    /// What FFmpeg says on the calling thread from now on is about the file at `path` (nil: none).
    static func name(file path: String?) {
        if let old = pthread_getspecific(threadFile) { Unmanaged<FileName>.fromOpaque(old).release() }
        pthread_setspecific(threadFile, path.map { Unmanaged.passRetained(FileName($0)).toOpaque() })
    }

    /// Stops routing to the host registered with `token`; its host is not used once this returns.
    public static func stop(_ token: Int) {
        state.withLock { state in
            state.registrations.removeAll { $0.token == token }
            if state.registrations.isEmpty {
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
        let file = pthread_getspecific(threadFile).map { Unmanaged<FileName>.fromOpaque($0).takeUnretainedValue().path }
        let token = Int(bitPattern: pthread_getspecific(threadToken))
        let second = Monotonic.nanoseconds / 1_000_000_000
        state.withLock { state in
            guard let index = state.registrations.firstIndex(where: { $0.token == token }) ?? state.registrations.indices.last else { return }
            var registration = state.registrations[index]
            defer { state.registrations[index] = registration }
            if registration.windowStart.map({ second - $0 >= windowSeconds }) ?? true { (registration.windowStart, registration.shown) = (second, 0) }
            registration.shown += 1
            if registration.shown <= burst {
                registration.host.log(.warning, "FFmpeg\(component.map { " \($0)" } ?? "")\(file.map { " (\($0))" } ?? ""): \(text)")
            } else if registration.shown == burst + 1 {
                registration.host.log(.warning, "FFmpeg: \(burst) errors this minute; the rest of the minute's are not shown")
            }
        }
    }
}
