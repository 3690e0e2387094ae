import DeckTestSupport
import Foundation
import Glibc
@testable import DeckEmbed

/// What the audio-thread packet callback saw, and what the calls it made from there returned.
final class AudioThreadObserved: @unchecked Sendable {  // Every field is behind `lock`; `rt` is set before the callback is.
    private let lock = NSLock()
    private var _granules: [Int64] = [], _threads: Set<String> = [], _statuses: [String: Int32] = [:]
    var rt: OpaquePointer?

    var granules: [Int64] { lock.withLock { _granules } }
    var threads: Set<String> { lock.withLock { _threads } }
    var statuses: [String: Int32] { lock.withLock { _statuses } }

    /// Notes a packet; returns how many came so far.
    func packet(granule: Int64, thread: String) -> Int {
        lock.withLock {
            _granules.append(granule)
            _threads.insert(thread)
            return _granules.count
        }
    }

    func status(_ name: String, _ value: Int32) { lock.withLock { _statuses[name] = value } }

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ user: UnsafeMutableRawPointer?) -> AudioThreadObserved { Unmanaged<AudioThreadObserved>.fromOpaque(user!).takeUnretainedValue() }

    /// The callback: on its 10th packet it tries the calls that would wait for the loop; on its 30th it clears itself.
    static let callback: EmbeddingAPI.PacketFunction = { user, _, _, granule, _, _, _ in
        let seen = AudioThreadObserved.from(user)
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
        let count = seen.packet(granule: granule, thread: name.trimmingCharacters(in: .whitespacesAndNewlines))
        guard let rt = seen.rt else { return }
        if count == 10 {
            var response: UnsafeMutablePointer<CChar>?
            seen.status("call_sync", deck_runtime_call_sync(rt, #"{"jsonrpc":"2.0","method":"runtime.info","id":1}"#, &response, 1_000))
            seen.status("process", deck_runtime_process(rt))
            seen.status("destroy", deck_runtime_destroy(rt))
            var message = DeckRuntimeMessage()
            seen.status("wait_message", deck_runtime_wait_message(rt, 100, &message))
            seen.status("call", deck_runtime_call(rt, #"{"jsonrpc":"2.0","method":"runtime.info","id":2}"#, nil, nil))
        }
        if count == 30 { seen.status("clear", deck_runtime_set_audio_packet_callback(rt, nil, nil)) }
    }
}
