import CDeckPlugin
@testable import DeckSDK
import Synchronization

/// A host whose log lines are kept and whose callback requests are counted, for the app code under
/// test; it offers deck.audio only to say whether the output freewheels.
final class RecordingHost: Sendable {
    let lines = Mutex<[String]>([])
    let callbacksRequested = Atomic<Int>(0)
    let freewheeling: Bool
    private nonisolated(unsafe) let raw = UnsafeMutablePointer<deck_host_t>.allocate(capacity: 1)
    private nonisolated(unsafe) let audio = UnsafeMutablePointer<deck_host_audio_t>.allocate(capacity: 1)

    init(freewheeling: Bool = false) {
        self.freewheeling = freewheeling
        raw.initialize(to: deck_host_t())
        raw.pointee.abi = deck_abi_version_t(major: UInt32(DECK_ABI_VERSION_MAJOR), minor: UInt32(DECK_ABI_VERSION_MINOR), patch: 0)
        raw.pointee.host_data = Unmanaged.passUnretained(self).toOpaque()
        raw.pointee.log = { host, _, message in
            guard let message else { return }
            RecordingHost.of(host)?.lines.withLock { $0.append(String(cString: message)) }
        }
        raw.pointee.request_callback = { host in
            guard let recording = RecordingHost.of(host) else { return deck_status_t(DECK_E_INVALID) }
            recording.callbacksRequested.add(1, ordering: .sequentiallyConsistent)
            return deck_status_t(DECK_OK)
        }
        audio.initialize(to: deck_host_audio_t())
        audio.pointee.is_freewheeling = { host in RecordingHost.of(host)?.freewheeling ?? false }
        raw.pointee.get_extension = { host, id in
            guard let recording = RecordingHost.of(host), let id, String(cString: id) == DECK_EXT_AUDIO else { return nil }
            return UnsafeRawPointer(recording.audio)
        }
    }

    deinit {
        raw.deallocate()
        audio.deallocate()
    }

    private static func of(_ host: UnsafePointer<deck_host_t>?) -> RecordingHost? {
        host?.pointee.host_data.map { Unmanaged<RecordingHost>.fromOpaque($0).takeUnretainedValue() }
    }

    var host: DeckHost { DeckHost(raw: raw) }
    var logged: [String] { lines.withLock { $0 } }
}
