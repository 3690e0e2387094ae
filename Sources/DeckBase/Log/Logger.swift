import Glibc
import Synchronization

/// How much the runtime says; each level includes the ones above it.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case error, warning, info, debug

    public init?(name: String) {
        switch name.lowercased() {
        case "error": self = .error
        case "warning", "warn": self = .warning
        case "info": self = .info
        case "debug": self = .debug
        default: return nil
        }
    }

    public var name: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .info: "info"
        case .debug: "debug"
        }
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// One line of the runtime's log: who said it, how loud, and what; the plugin it is about and the
/// alertable event it reports, where there are ones (the journal carries them as fields).
public struct LogRecord: Sendable, Equatable {
    public var level: LogLevel
    public var source: String
    public var message: String
    public var plugin: String? = nil
    public var event: LogEvent? = nil
}

/// The runtime's log: filtered by level, usable from any thread (plugins log from the audio thread too).
public final class Logger: Sendable {
    private let threshold: Atomic<Int>
    private let sink: @Sendable (LogRecord) -> Void

    /// Logs to standard error, one line per record.
    public convenience init(level: LogLevel = .info) {
        self.init(level: level, sink: Logger.standardError)
    }

    public init(level: LogLevel, sink: @escaping @Sendable (LogRecord) -> Void) {
        threshold = Atomic(level.rawValue)
        self.sink = sink
    }

    public var level: LogLevel {
        get { LogLevel(rawValue: threshold.load(ordering: .relaxed)) ?? .info }
        set { threshold.store(newValue.rawValue, ordering: .relaxed) }
    }

    public func log(_ level: LogLevel, _ source: String, plugin: String? = nil, event: LogEvent? = nil,
                    _ message: @autoclosure () -> String) {
        guard level.rawValue <= threshold.load(ordering: .relaxed) else { return }
        sink(LogRecord(level: level, source: source, message: PrintableText.escaping(message()), plugin: plugin, event: event))
    }

    public func error(_ source: String, plugin: String? = nil, event: LogEvent? = nil, _ message: @autoclosure () -> String) {
        log(.error, source, plugin: plugin, event: event, message())
    }
    public func warning(_ source: String, plugin: String? = nil, event: LogEvent? = nil, _ message: @autoclosure () -> String) {
        log(.warning, source, plugin: plugin, event: event, message())
    }
    public func info(_ source: String, plugin: String? = nil, _ message: @autoclosure () -> String) {
        log(.info, source, plugin: plugin, message())
    }
    public func debug(_ source: String, _ message: @autoclosure () -> String) { log(.debug, source, message()) }

    /// `2026-11-29T18:30:00.123Z warning plugins: message`, written with one `write(2)` so lines never interleave.
    public static let standardError: @Sendable (LogRecord) -> Void = { record in
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        var stamp = [CChar](repeating: 0, count: 32)
        strftime(&stamp, stamp.count, "%Y-%m-%dT%H:%M:%S", &parts)
        let millis = Int(now.tv_nsec / 1_000_000)
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        let time = String(decoding: stamp.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let line = "\(time).\(fraction)Z \(record.level.name) \(record.source): \(record.message)\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}
