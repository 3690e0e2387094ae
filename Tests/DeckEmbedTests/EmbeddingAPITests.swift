import DeckTestSupport
import Foundation
import Glibc
import Synchronization
import Testing
@testable import DeckAudio
@testable import DeckEmbed
@testable import DeckRuntime

/// What an embedder's callbacks saw, shared with the C callbacks through their user pointer.
final class Observed: @unchecked Sendable {  // Every field is behind `lock`.
    private let lock = NSLock()
    private var _packets = 0, _ends = 0, _events: [String] = [], _pcmFrames = 0, _replies: [String] = []

    var packets: Int { lock.withLock { _packets } }
    var ends: Int { lock.withLock { _ends } }
    var events: [String] { lock.withLock { _events } }
    var pcmFrames: Int { lock.withLock { _pcmFrames } }
    var replies: [String] { lock.withLock { _replies } }

    func packet(end: Bool) { lock.withLock { _packets += 1; if end { _ends += 1 } } }
    func event(_ line: String) { lock.withLock { _events.append(line) } }
    func pcm(_ frames: Int) { lock.withLock { _pcmFrames += frames } }
    func reply(_ line: String) { lock.withLock { _replies.append(line) } }

    var pointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ user: UnsafeMutableRawPointer?) -> Observed { Unmanaged<Observed>.fromOpaque(user!).takeUnretainedValue() }
}

private let onPacket: EmbeddingAPI.PacketFunction = { user, _, _, _, _, _, end in Observed.from(user).packet(end: end) }
private let onEvent: EmbeddingAPI.EventFunction = { user, line in Observed.from(user).event(String(cString: line!)) }
private let onPCM: EmbeddingAPI.PCMFunction = { user, _, frames in Observed.from(user).pcm(Int(frames)) }
private let onReply: EmbeddingAPI.ReplyFunction = { user, line in Observed.from(user).reply(String(cString: line!)) }
private let onLog: EmbeddingAPI.LogFunction = { user, level, source, message in
    Observed.from(user).event("\(level) \(String(cString: source!)): \(String(cString: message!))")
}

/// The embedding API as a C integrator uses it (the same @_cdecl functions libdeck.so exports).
@Suite(.serialized) struct EmbeddingAPITests {
    let config = #"{"plugins": ["\#(Paths.binDir)/plugins"], "logLevel": "error", "session": {"alwaysActive": true}}"#

    func create(_ json: String? = nil) throws -> OpaquePointer {
        var error: UnsafeMutablePointer<CChar>?
        guard let rt = deck_runtime_create(json ?? config, &error) else {
            defer { deck_runtime_free(error) }
            throw CommandFailure(description: error.map { String(cString: $0) } ?? "no reason")
        }
        return rt
    }

    func callSync(_ rt: OpaquePointer, _ request: String) -> (Int32, String) {
        var response: UnsafeMutablePointer<CChar>?
        let status = deck_runtime_call_sync(rt, request, &response, 10_000)
        defer { deck_runtime_free(response) }
        return (status, response.map { String(cString: $0) } ?? "")
    }

    @Test func modeOneRunsOnItsOwnThreadAndAnswersCallsEventsAndPackets() throws {
        let rt = try create()
        let seen = Observed()
        #expect(deck_runtime_set_packet_callback(rt, onPacket, seen.pointer) == 0)
        #expect(deck_runtime_set_event_callback(rt, onEvent, seen.pointer) == 0)
        #expect(deck_runtime_set_pcm_tap(rt, onPCM, seen.pointer) == 0)
        #expect(deck_runtime_subscribe(rt, "nowPlaying.changed") == 0)
        #expect(deck_runtime_start(rt) == 0)
        #expect(deck_runtime_start(rt) == -2)
        #expect(deck_runtime_process(rt) == -2)  // mode 1 already
        let (status, answer) = callSync(rt, #"{"jsonrpc":"2.0","method":"apps.launch","params":{"id":"org.deck.tone","item":"sine-440"},"id":7}"#)
        #expect(status == 0)
        #expect(answer.hasPrefix(#"{"id":7,"jsonrpc":"2.0","result":{"#))
        #expect(waitUntil(seconds: 5) { seen.packets > 20 && seen.pcmFrames > 20 * 960 })
        #expect(seen.events.contains { $0.contains(#""method":"nowPlaying.changed""#) && $0.contains(#""title":"Sine 440 Hz""#) && $0.contains(#""seq":"#) })
        // A deferred answer (a remote command waits for Tone) reaches the asynchronous callback by its id.
        #expect(deck_runtime_call(rt, #"{"jsonrpc":"2.0","method":"player.pause","id":"p"}"#, onReply, seen.pointer) == 0)
        #expect(waitUntil(seconds: 5) { seen.replies.contains { $0.contains(#""id":"p""#) && $0.contains(#""result""#) } })
        #expect(deck_runtime_destroy(rt) == 0)
        #expect(seen.ends == 1)  // the output ended with end of stream
        #expect(deck_runtime_destroy(rt) == -2)  // a destroyed handle is told apart from a foreign one
        #expect(deck_runtime_call(rt, "{}", nil, nil) == -2)
    }

    /// The embedding's own sink asks for each packet at once only while a packet callback is set:
    /// without one, the runtime's thread wakes only as often as its other sinks need.
    @Test func onlyAPacketCallbackMakesTheRuntimeWakeForEachPacket() throws {
        let rt = try create()
        let embedded = try EmbeddingAPI.lookup(rt)
        func batch() -> Int { embedded.runtime.audio.worker.batchFrames.load(ordering: .relaxed) }
        #expect(deck_runtime_start(rt) == 0)
        #expect(waitUntil(seconds: 5) { batch() == 50 })
        let seen = Observed()
        #expect(deck_runtime_set_packet_callback(rt, onPacket, seen.pointer) == 0)
        #expect(waitUntil(seconds: 5) { batch() == 1 })
        #expect(deck_runtime_set_packet_callback(rt, nil, nil) == 0)
        #expect(waitUntil(seconds: 5) { batch() == 50 })
        #expect(deck_runtime_destroy(rt) == 0)
    }

    /// A packet callback set before start asks for each packet from the first frame: the job that
    /// applies it runs only once the loop turns, after the audio thread began.
    @Test func aPacketCallbackSetBeforeStartIsInForceFromTheFirstFrame() throws {
        let rt = try create()
        let embedded = try EmbeddingAPI.lookup(rt)
        let seen = Observed()
        #expect(deck_runtime_set_packet_callback(rt, onPacket, seen.pointer) == 0)
        embedded.drive {  // start as the runtime's thread does, without turning the loop
            embedded.runtime.loop.thread.claim()
            embedded.startIfNeeded()
        }
        #expect(embedded.runtime.audio.worker.batchFrames.load(ordering: .relaxed) == 1)
        #expect(deck_runtime_destroy(rt) == 0)
    }

    /// API 1.4: the audio-thread packet callback gets every packet on the audio thread, wakes the
    /// runtime's thread for none, refuses there the calls that would wait for the loop, and can
    /// clear itself.
    @Test func theAudioThreadPacketCallbackRunsOnTheAudioThreadAndWakesNothing() throws {
        let rt = try create()
        let embedded = try EmbeddingAPI.lookup(rt)
        let seen = AudioThreadObserved()
        seen.rt = rt
        #expect(deck_runtime_set_audio_packet_callback(rt, AudioThreadObserved.callback, seen.pointer) == 0)
        #expect(deck_runtime_start(rt) == 0)
        #expect(callSync(rt, #"{"jsonrpc":"2.0","method":"apps.launch","params":{"id":"org.deck.tone","item":"sine-440"},"id":1}"#).0 == 0)
        #expect(waitUntil(seconds: 5) { seen.statuses["clear"] != nil })
        #expect(embedded.runtime.audio.worker.batchFrames.load(ordering: .relaxed) == 50, "no packet wakes the runtime's thread")
        usleep(200_000)  // ten frames: none reaches a cleared callback
        #expect(seen.granules.count == 30)
        #expect(seen.threads == ["deck-audio"])
        #expect(zip(seen.granules, seen.granules.dropFirst()).allSatisfy { $1 == $0 + 960 })
        #expect(seen.statuses == ["call_sync": -2, "process": -2, "destroy": -2, "wait_message": -2, "call": 0, "clear": 0])
        #expect(deck_runtime_set_audio_packet_callback(nil, AudioThreadObserved.callback, nil) == -1)
        #expect(deck_runtime_destroy(rt) == 0)
        #expect(deck_runtime_set_audio_packet_callback(rt, nil, nil) == -2)
    }

    @Test func logLinesGoToTheLogCallbackNeverToTheProcesssStandardError() throws {
        let rt = try create(#"{"plugins": ["\#(Paths.binDir)/plugins"], "logLevel": "info"}"#)
        let seen = Observed()
        #expect(deck_runtime_set_log_callback(rt, onLog, seen.pointer) == 0)
        #expect(deck_runtime_start(rt) == 0)
        #expect(waitUntil(seconds: 5) { seen.events.contains { $0.hasPrefix("2 plugins: loaded org.deck.tone") } })
        #expect(deck_runtime_destroy(rt) == 0)
        #expect(deck_runtime_set_log_callback(nil, onLog, nil) == -1)
    }

    /// API 1.1: the version string, the log level changed while running, and unsubscribing.
    @Test func theLogLevelChangesWhileRunningAndATopicCanBeLeft() throws {
        #expect(deck_runtime_api_version() == 1 << 16 | 4)
        #expect(String(cString: deck_runtime_version_string()) == "Deck \(DeckVersion.string) (runtime API 1.4, plugin ABI 1.6)")
        let rt = try create(#"{"plugins": ["\#(Paths.binDir)/plugins"], "logLevel": "error", "session": {"alwaysActive": true}}"#)
        let seen = Observed()
        #expect(deck_runtime_set_log_callback(rt, onLog, seen.pointer) == 0)
        #expect(deck_runtime_set_event_callback(rt, onEvent, seen.pointer) == 0)
        #expect(deck_runtime_subscribe(rt, "nowPlaying.changed") == 0)
        #expect(deck_runtime_start(rt) == 0)
        #expect(callSync(rt, #"{"jsonrpc":"2.0","method":"runtime.info","id":1}"#).0 == 0)
        #expect(!seen.events.contains { $0.hasPrefix("2 ") }, "info lines are filtered at error level")
        #expect(deck_runtime_set_log_level(rt, 2) == 0)
        #expect(callSync(rt, #"{"jsonrpc":"2.0","method":"apps.launch","params":{"id":"org.deck.tone","item":"sine-440"},"id":2}"#).0 == 0)
        #expect(waitUntil(seconds: 5) { seen.events.contains { $0.hasPrefix("2 ") } }, "info lines pass once the level is info")
        #expect(waitUntil(seconds: 5) { seen.events.contains { $0.contains(#""method":"nowPlaying.changed""#) } })
        #expect(deck_runtime_unsubscribe(rt, "nowPlaying.changed") == 0)
        #expect(callSync(rt, #"{"jsonrpc":"2.0","method":"runtime.info","id":3}"#).0 == 0)  // the unsubscription is in
        let before = seen.events.filter { $0.contains("nowPlaying.changed") }.count
        #expect(callSync(rt, #"{"jsonrpc":"2.0","method":"apps.launch","params":{"id":"org.deck.tone","item":"sine-880"},"id":4}"#).0 == 0)
        #expect(callSync(rt, #"{"jsonrpc":"2.0","method":"nowPlaying.get","id":5}"#).1.contains("880"))
        usleep(300_000)  // the coalescing window (100 ms) passes: a notification would have come by now
        #expect(seen.events.filter { $0.contains("nowPlaying.changed") }.count == before)
        #expect(deck_runtime_set_log_level(rt, 4) == -1 && deck_runtime_set_log_level(rt, -1) == -1)
        #expect(deck_runtime_unsubscribe(rt, "weather.changed") == -1)
        #expect(deck_runtime_destroy(rt) == 0)
        #expect(deck_runtime_set_log_level(rt, 2) == -2)
    }

    /// API 1.1's pull queue: without an event callback, subscribed notifications wait for
    /// `deck_runtime_wait_event`, in order; nothing waiting is a timeout; bad arguments are errors.
    @Test func withoutAnEventCallbackNotificationsWaitInTheQueue() throws {
        let rt = try create()
        var event: UnsafeMutablePointer<CChar>?
        #expect(deck_runtime_wait_event(rt, 0, &event) == -5 && event == nil, "nothing subscribed, nothing waits")
        #expect(deck_runtime_subscribe(rt, "nowPlaying.changed") == 0)
        #expect(deck_runtime_start(rt) == 0)
        let started = MonotonicClock.milliseconds
        #expect(deck_runtime_wait_event(rt, 100, &event) == -5 && event == nil)
        #expect(MonotonicClock.milliseconds - started >= 90, "the wait lasted its timeout")
        #expect(callSync(rt, #"{"jsonrpc":"2.0","method":"apps.launch","params":{"id":"org.deck.tone","item":"sine-440"},"id":1}"#).0 == 0)
        #expect(deck_runtime_wait_event(rt, 5_000, &event) == 0)
        let first = event.map { String(cString: $0) } ?? ""
        deck_runtime_free(event)
        #expect(first.contains(#""method":"nowPlaying.changed""#) && first.contains(#""seq":"#), "\(first)")
        #expect(callSync(rt, #"{"jsonrpc":"2.0","method":"apps.launch","params":{"id":"org.deck.tone","item":"sine-880"},"id":2}"#).0 == 0)
        var seqs: [Int] = []
        while deck_runtime_wait_event(rt, 1_000, &event) == 0 {
            let line = String(cString: event!)
            deck_runtime_free(event)
            if let value = try? JSONValue.parse(line), let seq = value["params"]?["seq"]?.intValue { seqs.append(Int(seq)) }
            if line.contains("Sine 880") { break }
        }
        #expect(!seqs.isEmpty && seqs == seqs.sorted(), "in order: \(seqs)")
        #expect(deck_runtime_wait_event(rt, 60_001, &event) == -1)
        #expect(deck_runtime_wait_event(rt, -1, &event) == -1)
        #expect(deck_runtime_wait_event(rt, 0, nil) == -1)
        #expect(deck_runtime_destroy(rt) == 0)
        #expect(deck_runtime_wait_event(rt, 0, &event) == -2)
    }

    /// A full queue drops its oldest notification (the loop never waits for a reader) and counts it.
    @Test func aFullQueueDropsItsOldest() {
        let queue = MessageQueue()
        #expect(queue.push(.init(tag: 9, line: "answer")) == nil)
        for index in 0..<MessageQueue.capacity { #expect(queue.push(.init(line: "\(index)")) == nil) }
        #expect(queue.push(.init(line: "late")) == 1)
        #expect(queue.pop(timeoutMilliseconds: 0, eventsOnly: true)?.line == "1", "the oldest notification, 0, went")
        #expect(queue.push(.init(line: "later")) == nil, "room again")
        #expect(queue.pop(timeoutMilliseconds: 0, eventsOnly: false)?.tag == 9, "a tagged answer is never dropped")
        var count = 1
        while queue.pop(timeoutMilliseconds: 0, eventsOnly: false) != nil { count += 1 }
        #expect(count == MessageQueue.capacity + 1)
    }

    @Test func badHandlesConfigsAndRequestsAreErrorsNeverCrashes() throws {
        var error: UnsafeMutablePointer<CChar>?
        #expect(deck_runtime_create(#"{"sinks": "nope"}"#, &error) == nil)
        #expect(String(cString: error!) == "config: \"sinks\" must be an array of sink URIs")
        deck_runtime_free(error)
        #expect(deck_runtime_create("{not json", &error) == nil)
        #expect(String(cString: error!).hasPrefix("the config is not JSON"))
        deck_runtime_free(error)
        #expect(deck_runtime_create(#"{"dataDirectory": "/tmp/deck-apps", "isolation": {"mediaFolders": ["/"]}}"#, &error) == nil)
        #expect(String(cString: error!).hasPrefix("the media folder / holds dataDirectory (/tmp/deck-apps)"), "\(String(cString: error!))")
        deck_runtime_free(error)
        #expect(deck_runtime_destroy(nil) == -1)
        #expect(deck_runtime_start(nil) == -1)
        #expect(deck_runtime_process(nil) == -1)
        #expect(deck_runtime_call(nil, "{}", nil, nil) == -1)
        #expect(deck_runtime_subscribe(nil, "ui.changed") == -1)
        let stranger = OpaquePointer(bitPattern: 0x1234)
        #expect(deck_runtime_set_packet_callback(stranger, nil, nil) == -1)
        #expect(String(cString: deck_runtime_status_string(-5)) == "no answer in time")
        #expect(deck_runtime_api_version() >> 16 == 1)

        let rt = try create("{}")
        #expect(deck_runtime_call(rt, nil, nil, nil) == -1)
        #expect(deck_runtime_subscribe(rt, "weather.changed") == -1)
        #expect(deck_runtime_start(rt) == 0)
        let (status, answer) = callSync(rt, "{not json")
        #expect(status == 0)
        #expect(answer.contains(#""code":-32700"#))  // the same Parse error the socket gives
        #expect(deck_runtime_destroy(rt) == 0)
    }

    @Test func modeTwoRunsInsideTheIntegratorsLoopWokenByTheWakeup() throws {
        let rt = try create()
        let seen = Observed()
        let woken = Atomic<Int>(0)
        let wakeup: EmbeddingAPI.WakeupFunction = { user in
            Unmanaged<AtomicBox>.fromOpaque(user!).takeUnretainedValue().value.add(1, ordering: .relaxed)
        }
        let box = AtomicBox()
        #expect(deck_runtime_set_packet_callback(rt, onPacket, seen.pointer) == 0)
        #expect(deck_runtime_set_wakeup(rt, wakeup, Unmanaged.passUnretained(box).toOpaque()) == 0)
        #expect(deck_runtime_process(rt) == 0)  // mode 2 begins with the first process: a wakeup alone commits to neither
        #expect(deck_runtime_start(rt) == -2)
        #expect(deck_runtime_call(rt, #"{"jsonrpc":"2.0","method":"apps.launch","params":{"id":"org.deck.tone"},"id":1}"#, nil, nil) == 0)
        let end = Date().addingTimeInterval(10)
        var handled = 0
        while seen.packets < 25 && Date() < end {
            let before = box.value.load(ordering: .relaxed)
            if before > handled {
                handled = before
                #expect(deck_runtime_process(rt) == 0)
            } else {
                usleep(1_000)
            }
        }
        #expect(seen.packets >= 25)
        #expect(deck_runtime_backend_fd(rt) >= 0)
        _ = woken
        #expect(deck_runtime_destroy(rt) == 0)
        #expect(seen.ends == 1)
    }

    @Test func eightThreadsCallAtOnceAndEachGetsItsOwnAnswers() throws {
        let rt = try create("{}")
        #expect(deck_runtime_start(rt) == 0)
        let failures = Atomic<Int>(0)
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(rt)))
        let threads = (0..<8).map { index in
            Thread {
                let rt = OpaquePointer(bitPattern: address)
                for call in 0..<200 {
                    var response: UnsafeMutablePointer<CChar>?
                    let id = "\"t\(index)-\(call)\""
                    let status = deck_runtime_call_sync(rt, #"{"jsonrpc":"2.0","method":"runtime.info","id":\#(id)}"#, &response, 10_000)
                    if status != 0 || !(response.map { String(cString: $0).hasPrefix("{\"id\":\(id)") } ?? false) {
                        failures.add(1, ordering: .relaxed)
                    }
                    deck_runtime_free(response)
                }
            }
        }
        threads.forEach { $0.start() }
        #expect(waitUntil(seconds: 60) { threads.allSatisfy(\.isFinished) })
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(deck_runtime_destroy(rt) == 0)
    }

    @Test func destroyWhileCallsAreInFlightRefusesTheLateOnesCleanly() throws {
        let rt = try create()
        let seen = Observed()
        #expect(deck_runtime_set_event_callback(rt, onEvent, seen.pointer) == 0)
        #expect(deck_runtime_subscribe(rt, "session.changed") == 0)
        #expect(deck_runtime_start(rt) == 0)
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(rt)))
        let stop = Atomic<Bool>(false)
        let refused = Atomic<Int>(0)
        let caller = Thread {
            let rt = OpaquePointer(bitPattern: address)
            while !stop.load(ordering: .relaxed) {
                if deck_runtime_call(rt, #"{"jsonrpc":"2.0","method":"session.request","params":{"context":"navigation"},"id":1}"#, nil, nil) != 0 {
                    refused.add(1, ordering: .relaxed)
                }
            }
        }
        caller.start()
        // Calls are being answered (their events arrive) when destroy comes.
        for _ in 0..<500 where seen.events.isEmpty { usleep(10_000) }
        #expect(deck_runtime_destroy(rt) == 0)
        usleep(50_000)
        stop.store(true, ordering: .relaxed)
        while !caller.isFinished { usleep(1_000) }
        #expect(refused.load(ordering: .relaxed) > 0)  // calls after destroy are refused, not crashes
        #expect(!seen.events.isEmpty)
    }

    /// Calls waiting for the loop are bounded: the 65537th is refused busy, and destroy answers the
    /// waiting ones with an error instead of running them.
    @Test func aFloodOfCallsIsBoundedAndDestroyDoesNotRunIt() throws {
        let rt = try create()
        let seen = Observed()
        for _ in 0..<EmbeddedRuntime.maxWaitingCalls {
            guard deck_runtime_call(rt, #"{"jsonrpc":"2.0","method":"runtime.info"}"#, nil, nil) == 0 else { break }
        }
        #expect(deck_runtime_call(rt, #"{"jsonrpc":"2.0","method":"runtime.info","id":1}"#, onReply, seen.pointer) == -6)
        #expect(String(cString: deck_runtime_status_string(-6)) == "too many calls wait for the runtime")
        #expect(deck_runtime_process(rt) == 0)  // one turn: at most the turn budget of calls
        #expect(deck_runtime_call(rt, #"{"jsonrpc":"2.0","method":"session.get","id":"last"}"#, onReply, seen.pointer) == 0, "room again")
        let started = MonotonicClock.milliseconds
        #expect(deck_runtime_destroy(rt) == 0)
        #expect(MonotonicClock.milliseconds - started < 5_000, "the waiting calls were not run")
        #expect(seen.replies.count == 1 && seen.replies[0].contains(#""code":-32004"#) && seen.replies[0].contains(#""id":"last""#),
                "\(seen.replies)")
    }

    @Test func aThousandHandlesLeaveNoThreadsDescriptorsOrSignalDispositionsBehind() throws {
        var ignored = sigaction()
        ignored.__sigaction_handler.sa_handler = SIG_IGN
        var previous = sigaction()
        sigaction(SIGPIPE, &ignored, &previous)
        defer { sigaction(SIGPIPE, &previous, nil) }
        func count(_ folder: String) -> Int { (try? FileManager.default.contentsOfDirectory(atPath: folder).count) ?? -1 }
        let warm = try create("{}")
        #expect(deck_runtime_start(warm) == 0)
        #expect(deck_runtime_destroy(warm) == 0)
        let (fds, threads, resident) = (count("/proc/self/fd"), count("/proc/self/task"), residentKiB(of: getpid()))
        for round in 0..<1_000 {
            let rt = try create("{}")
            if round % 10 == 0 { #expect(deck_runtime_start(rt) == 0) }  // every tenth with its own thread
            #expect(deck_runtime_destroy(rt) == 0)
        }
        // Other suites run beside this one and open and close their own: a margin far below one
        // leak per handle (4 descriptors, or a thread per started one) keeps the check honest.
        #expect(count("/proc/self/fd") - fds < 50)
        #expect(count("/proc/self/task") - threads < 10)
        let growth = residentKiB(of: getpid()) - resident
        #expect(growth < 16 * 1024, "resident memory grew by \(growth) KiB over 1000 handles")
        var now = sigaction()
        sigaction(SIGPIPE, nil, &now)
        #expect(unsafeBitCast(now.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self))  // the host's own, untouched
    }
}

final class AtomicBox: Sendable {
    let value = Atomic<Int>(0)
}
