import CDeckPlugin
@testable import DeckSDK
import Synchronization

/// A host whose log lines are kept and whose callback requests are counted, for the app code under test.
final class RecordingHost: Sendable {
    let lines = Mutex<[String]>([])
    let callbacksRequested = Atomic<Int>(0)
    private nonisolated(unsafe) let raw = UnsafeMutablePointer<deck_host_t>.allocate(capacity: 1)

    init() {
        raw.initialize(to: deck_host_t())
        raw.pointee.host_data = Unmanaged.passUnretained(self).toOpaque()
        raw.pointee.log = { host, _, message in
            guard let data = host?.pointee.host_data, let message else { return }
            Unmanaged<RecordingHost>.fromOpaque(data).takeUnretainedValue().lines.withLock { $0.append(String(cString: message)) }
        }
        raw.pointee.request_callback = { host in
            guard let data = host?.pointee.host_data else { return deck_status_t(DECK_E_INVALID) }
            Unmanaged<RecordingHost>.fromOpaque(data).takeUnretainedValue().callbacksRequested.add(1, ordering: .sequentiallyConsistent)
            return deck_status_t(DECK_OK)
        }
    }

    deinit { raw.deallocate() }

    var host: DeckHost { DeckHost(raw: raw) }
    var logged: [String] { lines.withLock { $0 } }
}
