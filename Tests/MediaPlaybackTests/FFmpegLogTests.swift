import CDeckPlugin
import CFFmpeg
@testable import DeckSDK
import Foundation
@testable import MediaPlayback
import Synchronization
import Testing

/// Where FFmpeg's messages go while apps are registered: errors to the host the thread was marked
/// with (else the last registered), 20 a minute each, then one line saying the rest are not shown;
/// each names the file its thread reads. The registrations are the process's: the suite's tests run
/// one at a time, and lines other suites' unmarked threads send the last registered are allowed for.
@Suite(.serialized) struct FFmpegLogTests {
    private static func say(_ text: String, level: Int32 = AV_LOG_ERROR) {
        withVaList([]) { av_vlog(nil, level, text + "\n", $0) }
    }

    @Test func aMarkedThreadsErrorsGoToItsHostTwentyAMinuteAndTheRestToTheLastRegistered() {
        let marked = RecordingHost(), last = RecordingHost()
        let markedToken = FFmpegLog.start(marked.host), lastToken = FFmpegLog.start(last.host)
        defer { FFmpegLog.stop(markedToken); FFmpegLog.stop(lastToken) }
        let done = DispatchSemaphore(value: 0)
        Thread {
            FFmpegLog.attribute(to: markedToken)
            FFmpegLogTests.say("only a warning", level: AV_LOG_WARNING)
            for number in 0..<25 { FFmpegLogTests.say("error \(number)") }
            done.signal()
        }.start()
        done.wait()
        FFmpegLogTests.say("from a thread nobody marked")
        // Suites running beside this one register too: `last` was the last registered only when the
        // next token is the one after its own.
        let prober = RecordingHost()
        let probe = FFmpegLog.start(prober.host)
        FFmpegLog.stop(probe)
        #expect(marked.logged == (0..<20).map { "FFmpeg: error \($0)" } + ["FFmpeg: 20 errors this minute; the rest of the minute's are not shown"])
        if probe == lastToken + 1 {
            #expect(last.logged.contains("FFmpeg: from a thread nobody marked"), "its own budget, not the other's")
        }
    }

    @Test func aThreadsLinesNameTheFileItReadsButNeverAStreamsURL() {
        let recording = RecordingHost()
        let token = FFmpegLog.start(recording.host)
        defer { FFmpegLog.stop(token) }
        let done = DispatchSemaphore(value: 0)
        Thread {
            FFmpegLog.attribute(to: token)
            FFmpegLog.name(file: "/music/a.mp3")
            FFmpegLogTests.say("about the file")
            _ = try? MediaSource(url: "http://user:secret@127.0.0.1:9/stream.mp3", timeoutSeconds: 1)
            FFmpegLogTests.say("after the stream")
            done.signal()
        }.start()
        done.wait()
        let logged = recording.logged
        let about = logged.firstIndex(of: "FFmpeg (/music/a.mp3): about the file"), after = logged.lastIndex(of: "FFmpeg: after the stream")
        #expect(about != nil && after != nil && about! < after!, "the file named while it is read, not after: \(logged)")
        #expect(!recording.logged.contains { $0.contains("secret") }, "\(recording.logged)")
    }
}
