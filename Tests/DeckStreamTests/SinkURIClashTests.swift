import DeckStream
import DeckTestSupport
import Foundation
import Testing

/// A sink that would write where one writes, or send where one sends, is refused with that one named.
@Suite struct SinkURIClashTests {
    let dir = TemporaryDirectory()

    func open(_ uris: String...) -> [SinkInfo] {
        uris.enumerated().map { SinkInfo(id: $0.offset + 1, uri: $0.element, name: $0.element, kind: .network, status: SinkStatus()) }
    }

    @Test func theFileAnotherSinkWritesIsRefusedHoweverItIsSpelled() throws {
        let path = dir.path + "/drive.opus"
        try #require(FileManager.default.createFile(atPath: path, contents: Data()))
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/link.opus", withDestinationPath: path)
        let sinks = open("http://127.0.0.1:8000/s.opus", "file:\(path)")
        for spelling in [path, dir.path + "/./drive.opus", dir.path + "/link.opus"] {
            #expect(try SinkURI("file:\(spelling)").clash(with: sinks) == "sink 2 writes \(path) already: two writers would interleave their pages")
        }
        #expect(try SinkURI("file:\(dir.path)/other.opus").clash(with: sinks) == nil, "a file not written yet")
        #expect(try SinkURI("file:\(path)").clash(with: open("file:\(dir.path)/gone.opus")) == nil, "a sink whose file was removed")
    }

    @Test func theAddressAnotherSinkSendsToOrListensOnIsRefused() throws {
        let sinks = open("rtp://127.0.0.1:5004?pt=96", "http://[::1]:8000/s.opus", "callback:embedder")
        #expect(try SinkURI("rtp://localhost:5004?pt=111").clash(with: sinks) == "sink 1 sends to 127.0.0.1:5004 already: its receiver would get two streams")
        #expect(try SinkURI("http://[::1]:8000/other.opus").clash(with: sinks) == "sink 2 listens on ::1:8000 already")
        #expect(try SinkURI("rtp://127.0.0.1:5006").clash(with: sinks) == nil)
        #expect(try SinkURI("http://127.0.0.1:8000/s.opus").clash(with: sinks) == nil, "another address, which the system judges")
        #expect(try SinkURI("http://[::1]:0/s.opus").clash(with: open("http://[::1]:0/s.opus")) == nil, "port 0 is a new port")
    }
}
