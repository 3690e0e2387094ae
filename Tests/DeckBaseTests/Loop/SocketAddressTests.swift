import DeckBase
import Testing

/// `HOST:PORT` as `--tcp`, `--simulator` and the config give it: a port is digits and nothing else.
@Suite struct SocketAddressTests {
    @Test func readsAnIPv4AnIPv6AndLocalhostAddress() throws {
        let four = try SocketAddress(hostPort: "127.0.0.1:8080")
        #expect(four.host == "127.0.0.1" && four.port == 8080)
        let six = try SocketAddress(hostPort: "[::1]:0")
        #expect(six.host == "::1" && six.port == 0 && six.isLoopback)
        #expect(try SocketAddress(hostPort: "localhost:65535").host == "127.0.0.1")
    }

    @Test(arguments: ["127.0.0.1:+80", "127.0.0.1:-0", "127.0.0.1: 80", "127.0.0.1:80 ", "127.0.0.1:65536", "127.0.0.1:000080",
                      "127.0.0.1:", "127.0.0.1", "127.0.0.1:0x50", "127.0.0.1:８０"])
    func refusesAPortThatIsNotPlainDigits(text: String) {
        #expect(throws: LoopError.self) { try SocketAddress(hostPort: text) }
    }

    @Test func aPortIsOneToFiveDigits() {
        #expect(SocketAddress.port("0") == 0 && SocketAddress.port("65535") == 65535 && SocketAddress.port("00080") == 80)
        #expect(SocketAddress.port("") == nil && SocketAddress.port("65536") == nil && SocketAddress.port("99999999999999999999") == nil)
    }
}
