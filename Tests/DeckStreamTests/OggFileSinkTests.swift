import DeckBase
import DeckTestSupport
import Foundation
import Testing
@testable import DeckStream

/// A file sink hands its writer each batch's pages together: one write, and one wake-up of the
/// writer's thread, per batch rather than per page.
@Suite struct OggFileSinkTests {
    @Test func aBatchsPagesReachTheWriterTogetherAtItsEnd() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/batch.opus"
        let loop = try EventLoop()
        let context = SinkContext(loop: loop, logger: Logger(level: .error), preSkip: 312, frameSize: try FrameSize(milliseconds: 20),
                                  encoder: EncoderSettings())
        let sink = try OggFileSink(path: path, mode: .create, context: context)
        func size() -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1 }
        func packet(_ index: Int64, last: Bool = false) -> EncodedPacket {
            EncodedPacket(bytes: [0xFC, 0xFF, 0xFE], sampleIndex: index * 960, samples: 960, isLast: last, finalGranule: last ? (index + 1) * 960 : nil,
                          preSkip: 312)
        }
        for index: Int64 in 0..<25 { sink.deliver(packet(index)) }  // 500 ms: the headers and five 100 ms pages
        usleep(50_000)
        #expect(size() == 0, "nothing is handed to the writer before the batch ends")
        #expect(sink.status.bytes == 0)
        sink.endBatch()
        #expect(turnLoop(loop, seconds: 2) { size() > 0 && size() == sink.status.bytes })
        let first = size()
        sink.deliver(packet(25, last: true))
        sink.finish()  // the end of stream is written even before its batch ends
        #expect(turnLoop(loop, seconds: 2) { size() > first && sink.status.finished })
        sink.close()
        turnLoop(loop) { !loop.runNoWait() }
        let info = try AudioAnalysis.opusinfo(path)
        #expect(info.output.contains("Logical stream 1 ended"), "\(info.output)")
    }
}
