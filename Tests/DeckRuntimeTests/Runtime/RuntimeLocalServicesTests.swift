import DeckTestSupport
import Glibc
import Testing
@testable import DeckRuntime

/// A plugin reaches this machine's local services (the session bus, where the MPRIS player asks
/// who calls) as the runtime's uid only when its host shares that uid and may make Unix sockets.
@Suite struct RuntimeLocalServicesTests {
    @Test(arguments: [(["services"], 0, true, true), ([], 0, true, false), ([], 0, false, true), (["services"], 61_000, true, false)])
    func onlyAHostOnTheRuntimesUidThatMayMakeUnixSocketsReachesThem(permissions: [String], uidBase: Int, sandbox: Bool, reaches: Bool) throws {
        try #require(geteuid() == 0, "uidBase 61000 gives hosts uids of their own only as root")
        let dir = TemporaryDirectory()
        let bundle = try Fixture.bundle(in: dir.path, manifest: ["permissions": permissions])
        let harness = try StreamingHarness(freewheel: true, isolation: .process) {
            $0.isolation.uidBase = uidBase
            $0.isolation.sandbox = sandbox
        }
        #expect(!harness.runtime.pluginsReachLocalServices, "no plugin is loaded")
        try harness.load(bundle)
        #expect(harness.runtime.pluginsReachLocalServices == reaches)
        #expect(harness.shutDown())
    }
}
