import CProcess
import Glibc

/// Whether this machine gained or lost an address since last asked: a netlink socket the kernel
/// tells of each change as it makes it, read without waiting, so a question asked before a send
/// sees every change made before it. Loop-thread-confined.
public final class AddressChanges {
    /// -1 when the kernel or a system call filter refuses the socket: every question then answers yes.
    private let descriptor: Int32

    public init() { descriptor = deck_address_changes_open() }

    /// Whether an address may have been added or removed since the last call (yes when that
    /// cannot be known).
    public func happened() -> Bool { descriptor < 0 || deck_address_changes_drain(descriptor) != 0 }

    deinit { if descriptor >= 0 { close(descriptor) } }
}
