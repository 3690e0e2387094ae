@testable import DeckIsolation
import DeckPlugins
import DeckBase
import Testing

/// The calls between deckd and a plugin's host process keep their meaning across the wire: each
/// is tagged by its place in its `Tag` enum, read back equal, and an unknown tag is refused by name.
@Suite struct WireTaggedTests {
    private func roundTrip<T: WireValue>(_ value: T) throws -> T {
        var writer = WireWriter(.call)
        writer.write(value)
        var reader = try WireReader(body: Array(writer.message.dropFirst(4)))
        let read: T = try reader.read()
        try reader.finish()
        return read
    }

    @Test func everyPluginCallComesBackEqualWithItsOwnTag() throws {
        let calls: [PluginCall] = [.initialize, .activate, .deactivate, .destroy, .onCallback, .start(item: "a"), .start(item: nil), .stop,
                                   .sessionChanged(active: true), .displayChanged(attached: true, profile: "{}"),
                                   .select(templateID: 7, key: "k", token: 9), .limitsChanged("{}"), .childCount(path: "0/1"),
                                   .contentItem(path: "2"), .beginLoading(path: "3", token: 4), .play(path: "5", token: 6)]
        for call in calls { #expect(try roundTrip(call) == call) }
        let tags = calls.map(\.tag.rawValue)
        #expect(Set(tags).count == Set(calls.map(\.name)).count, "one tag per call, one name per tag")
        #expect(PluginCall.initialize.tag.rawValue == 0 && PluginCall.play(path: "", token: 0).tag.rawValue == 16,
                "tags keep the numbers older hosts were built with")
    }

    @Test func anUnknownTagIsRefusedNamingWhatItWasFor() throws {
        var writer = WireWriter(.call)
        writer.write(UInt8(200))
        var reader = try WireReader(body: Array(writer.message.dropFirst(4)))
        #expect(throws: WireError.invalid("plugin call 200")) { _ = try reader.read(PluginCall.self) }
        var hostReader = try WireReader(body: Array(writer.message.dropFirst(4)))
        #expect(throws: WireError.invalid("host call 200")) { _ = try hostReader.read(HostCall.self) }
    }

    @Test func hostCallsNowPlayingAndUICallsKeepTheirNumbers() {
        #expect(HostCall.ui(.pop).tag.rawValue == 5)
        #expect(NowPlayingCall.clear.tag.rawValue == 2)
        #expect(UICall.reloadContent.tag.rawValue == 9)
        #expect(UICall.removeImage(0).tag.rawValue == 12, "a call added later takes the next number")
    }

    @Test func anImagesIDComesBackWhole() throws {
        guard case .removeImage(let id) = try roundTrip(UICall.removeImage(.max)) else { Issue.record("not remove_image"); return }
        #expect(id == .max)
    }
}
