import Glibc
import Synchronization

/// Writes log records to systemd's journal over its native protocol (one datagram a record), with
/// the fields tools filter on: `PRIORITY`, `DECK_SOURCE`, `DECK_PLUGIN`, `MESSAGE_ID`.
public final class JournalWriter: Sendable {
    /// The journal's native socket; a journald namespace's is `/run/systemd/journal.NAMESPACE/socket`.
    public static let defaultSocket = "/run/systemd/journal/socket"

    public let socketPath: String
    public let identifier: String
    private let descriptor: Int32
    /// Set once standard error was told that the journal does not take records.
    private let fellBack = Atomic<Bool>(false)

    /// Opens a datagram socket for `socketPath`; nil when the path cannot be a Unix socket address.
    public init?(socketPath: String = JournalWriter.defaultSocket, identifier: String) {
        guard !socketPath.isEmpty, socketPath.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        self.socketPath = socketPath
        self.identifier = identifier
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Whether standard error is connected to the journal (systemd sets `JOURNAL_STREAM` to its device
    /// and inode), so that native records replace the text lines a service would otherwise write there.
    public static var standardErrorIsJournal: Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    /// The journal's priority (syslog's) for a level.
    public static func priority(_ level: LogLevel) -> Int {
        switch level {
        case .error: 3
        case .warning: 4
        case .info: 6
        case .debug: 7
        }
    }

    /// One record in the native protocol's form: `NAME=value\n` fields, the message length-prefixed
    /// since it may hold newlines.
    public func datagram(_ record: LogRecord) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(record.message.utf8.count + 160)
        func field(_ name: String, _ value: String) {
            bytes += name.utf8
            bytes.append(UInt8(ascii: "="))
            bytes += value.utf8.lazy.map { $0 == 10 ? 32 : $0 }
            bytes.append(10)
        }
        field("PRIORITY", String(JournalWriter.priority(record.level)))
        field("SYSLOG_IDENTIFIER", identifier)
        field("DECK_SOURCE", record.source)
        if let plugin = record.plugin { field("DECK_PLUGIN", plugin) }
        if let event = record.event { field("MESSAGE_ID", event.messageID) }
        bytes += "MESSAGE\n".utf8
        var length = UInt64(record.message.utf8.count).littleEndian
        withUnsafeBytes(of: &length) { bytes += $0 }
        bytes += record.message.utf8
        bytes.append(10)
        return bytes
    }

    /// Sends `record`; false when the journal did not take it (not running, or the record too large).
    @discardableResult
    public func write(_ record: LogRecord) -> Bool {
        let bytes = datagram(record)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in socketPath.utf8.enumerated() { path[index] = byte }
        }
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        }
        return sent == bytes.count
    }

    /// A logger sink: each record to the journal, or as a text line on standard error when the journal
    /// does not take it, so nothing is lost; the first time, a line there says why.
    public var sink: @Sendable (LogRecord) -> Void {
        { [self] record in
            guard !write(record) else { return }
            let reason = String(cString: strerror(errno))
            if !fellBack.exchange(true, ordering: .relaxed) {
                Logger.standardError(LogRecord(level: .warning, source: "log", message: "the journal at \(socketPath) does not take records "
                                               + "(\(reason)): they go to standard error while it does not"))
            }
            Logger.standardError(record)
        }
    }
}
