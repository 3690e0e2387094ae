import Testing
@testable import DeckStream

@Suite struct HTTPRequestHeadTests {
    func parse(_ text: String) -> HTTPRequestHead? {
        let bytes = Array(text.utf8)
        guard let length = HTTPRequestHead.headLength(in: bytes) else { return nil }
        return HTTPRequestHead.parse(bytes[..<length])
    }

    @Test func parsesARequestLineAndHeaders() throws {
        let head = try #require(parse("GET /stream.opus HTTP/1.1\r\nHost: car:8000\r\nIcy-MetaData:1\r\n\r\n"))
        #expect(head.method == "GET")
        #expect(head.target == "/stream.opus")
        #expect(head.version == "HTTP/1.1")
        #expect(head.headers.map(\.name) == ["Host", "Icy-MetaData"])
        #expect(head.headers.map(\.value) == ["car:8000", "1"])
    }

    /// A player behind a proxy names the whole URL; the mount is its path.
    @Test(arguments: [("http://car:8000/stream.opus?x=1", "/stream.opus?x=1"), ("HTTP://car/stream.opus", "/stream.opus"),
                      ("http://car:8000", "/"), ("http://car?x", "/?x"), ("/stream.opus", "/stream.opus")])
    func anAbsoluteTargetIsItsPath(target: String, path: String) throws {
        #expect(try #require(parse("GET \(target) HTTP/1.1\r\nHost: car\r\n\r\n")).target == path)
    }

    /// A mount is named by its path's characters, escaped or not.
    @Test(arguments: [("/%C3%BC.opus", "/ü.opus"), ("/ü.opus", "/ü.opus"), ("/a%20b", "/a b"), ("/%2f", "/\u{2f}"), ("/%", nil), ("/%zz", nil),
                      ("/%C3", nil)] as [(String, String?)])
    func escapesAreDecoded(path: String, decoded: String?) {
        #expect(HTTPRequestHead.decoded(path[...]) == decoded)
    }

    @Test func findsTheEndOfTheHeadOnlyOnceItArrives() {
        #expect(HTTPRequestHead.headLength(in: Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8)) == nil)
        #expect(HTTPRequestHead.headLength(in: Array("GET / HTTP/1.1\r\n\r\nextra".utf8)) == 18)
    }

    /// A client that ends its lines in a bare LF (a script, netcat) is read as one that sends CRLF.
    @Test func linesMayEndInABareLF() throws {
        #expect(HTTPRequestHead.headLength(in: Array("GET / HTTP/1.1\nHost: x\n".utf8)) == nil)
        #expect(HTTPRequestHead.headLength(in: Array("GET / HTTP/1.1\nHost: x\n\nextra".utf8)) == 24)
        #expect(HTTPRequestHead.headLength(in: Array("GET / HTTP/1.1\nHost: x\r\n\r\n".utf8)) == 26)
        let head = try #require(parse("GET /stream.opus HTTP/1.0\nHost: car\r\nUser-Agent: sh\n\n"))
        #expect(head.target == "/stream.opus" && head.headers.map(\.value) == ["car", "sh"])
    }

    @Test(arguments: ["GET /\r\n\r\n", "get / HTTP/1.1\r\n\r\n", "GET stream HTTP/1.1\r\n\r\n", "GET / HTTP/3\r\n\r\n",
                      "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nNoColon\r\n\r\n", "GET / HTTP/1.1\r\n: empty\r\n\r\n",
                      "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
                      "GET http:// HTTP/1.1\r\n\r\n", "GET http:///stream.opus HTTP/1.1\r\n\r\n", "GET https://car/stream.opus HTTP/1.1\r\n\r\n",
                      "GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n", "\n\n"])
    func refusesMalformedHeads(text: String) {
        #expect(parse(text) == nil)
    }

    @Test func refusesInvalidUTF8() {
        let bytes: [UInt8] = Array("GET /".utf8) + [0xFF] + Array(" HTTP/1.1\r\n\r\n".utf8)
        #expect(HTTPRequestHead.parse(bytes[...]) == nil)
    }
}
