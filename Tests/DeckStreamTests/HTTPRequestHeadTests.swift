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

    @Test func findsTheEndOfTheHeadOnlyOnceItArrives() {
        #expect(HTTPRequestHead.headLength(in: Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8)) == nil)
        #expect(HTTPRequestHead.headLength(in: Array("GET / HTTP/1.1\r\n\r\nextra".utf8)) == 18)
    }

    @Test(arguments: ["GET /\r\n\r\n", "get / HTTP/1.1\r\n\r\n", "GET stream HTTP/1.1\r\n\r\n", "GET / HTTP/3\r\n\r\n",
                      "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nNoColon\r\n\r\n", "GET / HTTP/1.1\r\n: empty\r\n\r\n",
                      "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n"])
    func refusesMalformedHeads(text: String) {
        #expect(parse(text) == nil)
    }

    @Test func refusesInvalidUTF8() {
        let bytes: [UInt8] = Array("GET /".utf8) + [0xFF] + Array(" HTTP/1.1\r\n\r\n".utf8)
        #expect(HTTPRequestHead.parse(bytes[...]) == nil)
    }
}
