import Foundation
import Synchronization
import Testing
@testable import DeckRuntime
@testable import DeckPlugins
import DeckTestSupport
import CDeckPlugin

/// The host drives init → activate → deactivate → destroy and refuses calls in the wrong state.
@Suite struct PluginLifecycleTests {
    let dir = TemporaryDirectory()
    let log = LogCapture()

    func lifecycle(_ plugin: PluginInstance) -> [String] {
        log.messages(from: plugin.id).filter { $0.hasPrefix("lifecycle: ") }.map { String($0.dropFirst(11)) }
    }

    @Test func callsArriveInLifecycleOrder() throws {
        let runtime = try makeRuntime(log: log)
        let plugin = try #require(runtime.plugins.load(try Fixture.bundle(in: dir.path)))
        runtime.plugins.activateAll()
        #expect(plugin.state == .active)
        runtime.shutdown()
        #expect(plugin.state == .destroyed)
        #expect(lifecycle(plugin) == ["init", "activate", "deactivate", "destroy"])
        #expect(runtime.plugins.isEmpty)
    }

    @Test func callsInTheWrongStateAreRefusedWithoutReachingThePlugin() throws {
        let runtime = try makeRuntime(log: log)
        let plugin = try #require(runtime.plugins.load(try Fixture.bundle(in: dir.path)))
        #expect(throws: PluginCallError(status: .state, message: "cannot deactivate org.deck.test.fixture: it is initialized, expected active")) {
            try plugin.deactivate()
        }
        #expect(throws: PluginCallError(status: .state, message: "cannot init org.deck.test.fixture: it is initialized, expected created")) {
            try plugin.initialize()
        }
        try plugin.activate()
        #expect(throws: PluginCallError(status: .state, message: "cannot activate org.deck.test.fixture: it is active, expected initialized")) {
            try plugin.activate()
        }
        plugin.destroy()
        plugin.destroy()
        #expect(throws: PluginCallError(status: .state, message: "cannot activate org.deck.test.fixture: it is destroyed, expected initialized")) {
            try plugin.activate()
        }
        #expect(throws: PluginCallError.self) { _ = try plugin.extensionPointer("org.deck.test.marker") }
        #expect(lifecycle(plugin) == ["init", "activate", "deactivate", "destroy"])
        runtime.shutdown()
    }

    @Test func theHostRefusesACallbackRequestAfterDestroy() throws {
        let runtime = try makeRuntime(log: log)
        let plugin = try #require(runtime.plugins.load(try Fixture.bundle(in: dir.path)))
        plugin.destroy()
        let host = plugin.host.raw
        let loopError = String(cString: host.pointee.last_error(host)!)
        // From a thread the plugin left behind: refused there, and said there.
        let answer = Mutex<(status: deck_status_t, error: String)?>(nil)
        let address = UInt(bitPattern: host)
        Thread {
            let host = UnsafePointer<deck_host_t>(bitPattern: address)!
            let status = host.pointee.request_callback(host)
            answer.withLock { $0 = (status, String(cString: host.pointee.last_error(host)!)) }
        }.start()
        while answer.withLock({ $0 }) == nil { usleep(1_000) }
        #expect(answer.withLock { $0?.status } == deck_status_t(DECK_E_STATE))
        #expect(answer.withLock { $0?.error } == "request_callback: the plugin is destroyed")
        #expect(String(cString: host.pointee.last_error(host)!) == loopError && loopError.isEmpty)
        #expect(host.pointee.request_callback(host) == deck_status_t(DECK_E_STATE))
        #expect(String(cString: host.pointee.last_error(host)!) == "request_callback: the plugin is destroyed")
        runtime.shutdown()
    }

    /// Inline only: an extension's pointer means nothing across processes.
    @Test func extensionsAreFoundByIdInBothDirections() throws {
        let runtime = try makeRuntime(isolation: .inline, log: log)
        let plugin = try #require(runtime.plugins.load(try Fixture.bundle(in: dir.path)))
        let marker = try #require(try plugin.extensionPointer("org.deck.test.marker"))
        #expect(marker.load(as: Int32.self) == 42)
        #expect(try plugin.extensionPointer("deck.no-such-thing") == nil)

        let host = plugin.host.raw
        #expect(host.pointee.get_extension(host, DECK_EXT_THREAD_CHECK) != nil)
        #expect(host.pointee.get_extension(host, "deck.no-such-thing") == nil)
        #expect(host.pointee.has_entitlement(host, "audio"))
        #expect(!host.pointee.has_entitlement(host, "maps"))
        runtime.shutdown()
    }

    @Test func aCallbackRequestedFromAnotherThreadArrivesOnTheLoopThread() throws {
        let runtime = try makeRuntime(log: log)
        let plugin = try #require(runtime.plugins.load(try Fixture.bundle(in: dir.path)))
        try plugin.activate()  // the fixture asks for callbacks from a thread of its own
        let arrived = turnLoop(runtime.loop) { log.messages(from: plugin.id).contains { $0.hasPrefix("callback: ") } }
        #expect(arrived)
        let callbacks = log.messages(from: plugin.id).filter { $0.hasPrefix("callback: ") }
        #expect(callbacks.allSatisfy { $0 == "callback: loop thread" })
        #expect((1...3).contains(callbacks.count))
        runtime.shutdown()
    }

    /// Inline only: an isolated plugin's library is mapped in its host process.
    @Test func swiftLibrariesStayMappedAfterUnloadAndCLibrariesDoNot() throws {
        let runtime = try makeRuntime(isolation: .inline, log: log)
        let fixture = try Fixture.bundle(in: dir.path)
        let c = try #require(runtime.plugins.load(fixture))
        let swift = try #require(runtime.plugins.load(Paths.toneBundle))
        runtime.plugins.unload(c)
        runtime.plugins.unload(swift)
        let cPath = try #require(AbsolutePath.real("\(fixture)/libfixture.so"))
        let swiftPath = try #require(AbsolutePath.real("\(Paths.toneBundle)/libTone.so"))
        #expect(dlopen(cPath, RTLD_NOW | RTLD_NOLOAD) == nil)
        let handle = dlopen(swiftPath, RTLD_NOW | RTLD_NOLOAD)
        #expect(handle != nil)
        if let handle { dlclose(handle) }
        runtime.shutdown()
    }
}
