import Testing
@testable import DeckStream

/// A sink's name and kind, as the output picker shows them, written in its URI.
@Suite struct SinkLabelTests {
    @Test func nameAndKindComeOffTheURIWhateverTheScheme() throws {
        let (file, fileLabel) = try SinkLabel.parse("file:cabin.opus?name=Cabin%20speakers&kind=speakers")
        #expect(file == .file(path: "cabin.opus"))
        #expect(fileLabel == SinkLabel(name: "Cabin speakers", kind: .speakers))
        let (pipe, pipeLabel) = try SinkLabel.parse("file:/run/amp?pipe&name=Amp")
        #expect(pipe == .file(path: "/run/amp", pipe: true))
        #expect(pipeLabel == SinkLabel(name: "Amp"))
        let (rtp, rtpLabel) = try SinkLabel.parse("rtp://127.0.0.1:5004?name=Rear+seats&pt=97&kind=headphones")
        #expect(rtp == .rtp(host: "127.0.0.1", port: 5004, payloadType: 97, sdpPath: nil))
        #expect(rtpLabel == SinkLabel(name: "Rear seats", kind: .headphones))
        let (http, httpLabel) = try SinkLabel.parse("http://127.0.0.1:0/s.opus?kind=bluetooth")
        #expect(http == .http(host: "127.0.0.1", port: 0, path: "/s.opus"))
        #expect(httpLabel == SinkLabel(kind: .bluetooth))
    }

    @Test func withoutALabelTheKindFollowsTheScheme() throws {
        #expect(try SinkLabel.parse("file:x.opus").label == SinkLabel())
        #expect(SinkKind(default: .file(path: "x.opus")) == .recording)
        #expect(SinkKind(default: .http(host: "127.0.0.1", port: 1, path: "/")) == .network)
    }

    @Test(arguments: [
        ("file:a.opus?name=", "name= must be 1 to 64 bytes of percent-encoded UTF-8 without control characters"),
        ("file:a.opus?name=%4", "name= must be 1 to 64 bytes of percent-encoded UTF-8 without control characters"),
        ("file:a.opus?name=%FF", "name= must be 1 to 64 bytes of percent-encoded UTF-8 without control characters"),
        ("file:a.opus?name=a%0Ab", "name= must be 1 to 64 bytes of percent-encoded UTF-8 without control characters"),
        ("file:a.opus?kind=car", "kind= must be one of speakers, headphones, bluetooth, network, recording"),
        ("file:a.opus?name=A&name=B", "name= is given twice; give it once"),
        ("http://127.0.0.1:0/x?kind=network&kind=recording", "kind= is given twice; give it once"),
    ])
    func aBadLabelIsRefusedWithTheRule(text: String, reason: String) {
        #expect(throws: SinkError.invalidURI(text, reason)) { try SinkLabel.parse(text) }
    }

    @Test func aNameLongerThan64BytesIsRefused() throws {
        let text = "file:a.opus?name=" + String(repeating: "x", count: 65)
        #expect(throws: SinkError.self) { try SinkLabel.parse(text) }
        #expect(try SinkLabel.parse("file:a.opus?name=" + String(repeating: "x", count: 64)).label.name?.count == 64)
    }
}
