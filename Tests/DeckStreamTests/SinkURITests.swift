import Testing
@testable import DeckStream

@Suite struct SinkURITests {
    @Test(arguments: [
        ("file:out.opus", SinkURI.file(path: "out.opus")),
        ("http://127.0.0.1:8000/stream.opus", .http(host: "127.0.0.1", port: 8000, path: "/stream.opus")),
        ("http://localhost:0", .http(host: "127.0.0.1", port: 0, path: "/")),
        ("http://[::1]:8000/s", .http(host: "::1", port: 8000, path: "/s")),
        ("rtp://127.0.0.1:5004", .rtp(host: "127.0.0.1", port: 5004, payloadType: 96, sdpPath: nil)),
        ("rtp://127.0.0.1:5004?pt=111&sdp=/tmp/s.sdp", .rtp(host: "127.0.0.1", port: 5004, payloadType: 111, sdpPath: "/tmp/s.sdp")),
        // A scheme is the same in any case (RFC 3986); the rest is kept as written.
        ("FILE:Out.opus", .file(path: "Out.opus")),
        ("HTTP://127.0.0.1:8000/Car.opus", .http(host: "127.0.0.1", port: 8000, path: "/Car.opus")),
        ("Rtp://127.0.0.1:5004?pt=97", .rtp(host: "127.0.0.1", port: 5004, payloadType: 97, sdpPath: nil)),
        // `-` is standard output, as to ffmpeg; a name that only starts with it is a file.
        ("file:-", .file(path: "/dev/stdout", pipe: true)),
        ("file:-?pipe", .file(path: "/dev/stdout", pipe: true)),
        ("file:-x.opus", .file(path: "-x.opus")),
    ])
    func parsesTheThreeKinds(text: String, uri: SinkURI) throws {
        #expect(try SinkURI(text) == uri)
    }

    @Test(arguments: [
        ("ftp://host/x", "expected file:PATH, http://HOST:PORT/PATH or rtp://HOST:PORT?pt=96&sdp=PATH"),
        ("file:", "a file sink needs a path, e.g. file:out.opus"),
        ("http://127.0.0.1/x", "expected HOST:PORT"),
        ("http://127.0.0.1:99999/x", "expected HOST:PORT with a port from 0 to 65535"),
        ("rtp://127.0.0.1:+5004", "expected HOST:PORT with a port from 0 to 65535"),
        ("http://127.0.0.1: 80/x", "expected HOST:PORT with a port from 0 to 65535"),
        ("http://127.0.0.1:000080/x", "expected HOST:PORT with a port from 0 to 65535"),
        ("http://[::1/x", "an IPv6 address goes in closed brackets, e.g. [::1]:8000"),
        ("rtp://[::1:5004", "an IPv6 address goes in closed brackets, e.g. [::1]:8000"),
        ("http://[::1]]:80/x", "expected HOST:PORT"),
        ("http://::1]:80/x", "a bracket belongs around an IPv6 address only, e.g. [::1]:8000"),
        ("http://127.0.0.1:80/x?y", "the path may not contain '?' or spaces"),
        // A mount no player could reach: the fragment is never sent, the escape never matches.
        ("http://127.0.0.1:80/a#b", "the path may not contain '#': players do not send what follows it"),
        ("http://127.0.0.1:80/%zz.opus", "a %-escape in the path must be % and two hex digits, of UTF-8 (%C3%BC for ü)"),
        ("http://127.0.0.1:80/%FF.opus", "a %-escape in the path must be % and two hex digits, of UTF-8 (%C3%BC for ü)"),
        ("rtp://127.0.0.1:0", "an RTP sink needs a destination port"),
        ("rtp://127.0.0.1:5004?pt=8", "pt must be a dynamic payload type, 96 to 127"),
        ("rtp://127.0.0.1:5004?ttl=3", "unknown query item 'ttl' (known: pt, sdp)"),
        ("rtp://127.0.0.1:5004?pt=96&pt=97", "pt= is given twice; give it once"),
        ("rtp://127.0.0.1:5004?sdp=a.sdp&sdp=b.sdp", "sdp= is given twice; give it once"),
    ])
    func refusesWhatItCannotUseWithTheReason(text: String, reason: String) {
        #expect(throws: SinkError.invalidURI(text, reason)) { try SinkURI(text) }
    }

    @Test func describesItselfAsWritten() throws {
        for text in ["file:/a/b.opus", "http://[::1]:8000/s", "rtp://127.0.0.1:5004?pt=96&sdp=s.sdp"] {
            #expect(try SinkURI(text).description == text)
        }
    }
}
