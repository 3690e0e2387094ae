import Foundation

/// An address of RFC 5737's 198.51.100.0/24, which no machine owns, that a test gives this machine
/// on `lo` (as root, with iproute2's `ip`) as DHCP would give one; taken back by `remove()` or when
/// the value is freed.
public final class LoopbackAddressForTest {
    public let address = "198.51.100.\(Int.random(in: 2...254))"
    private var added = false

    public init() {}

    public func add() throws {
        try ip("add")
        added = true
    }

    public func remove() throws {
        guard added else { return }
        try ip("del")
        added = false
    }

    deinit { try? remove() }

    private func ip(_ verb: String) throws {
        let outcome = try runProgram("/sbin/ip", ["address", verb, "\(address)/32", "dev", "lo"])
        guard outcome.status == 0 else { throw CommandFailure(description: "ip address \(verb) \(address)/32 dev lo: \(outcome.output)") }
    }
}
