import Testing
@testable import DeckNowPlaying

/// The center on its own: who may write it, how elapsed moves, what the queue accepts.
@Suite struct NowPlayingCenterTests {
    func owned(by owner: String = "org.example.radio") -> NowPlayingCenter {
        let center = NowPlayingCenter()
        center.transfer(to: owner)
        return center
    }

    func playing(duration: Double? = 100, rate: Double = 1, at now: UInt64 = 1_000) -> NowPlayingInfo {
        var info = NowPlayingInfo()
        info.title = "Song"
        info.duration = duration
        info.setPosition(elapsed: 10, rate: rate, state: .playing, now: now)
        return info
    }

    @Test func onlyTheOwnerWritesAndTheRefusalNamesTheOwner() throws {
        let center = owned()
        #expect(throws: NowPlayingError.notOwner(caller: "org.example.maps", owner: "org.example.radio")) {
            try center.setInfo(playing(), artworkBytes: nil, from: "org.example.maps")
        }
        #expect(NowPlayingError.notOwner(caller: "a", owner: "b").description
                == "a does not own now playing: b does (it holds, or last held, music focus)")
        #expect(NowPlayingError.notOwner(caller: "a", owner: nil).description.contains("no app holds music focus"))
        #expect(try center.setInfo(playing(), artworkBytes: nil, from: "org.example.radio") == .info)
        #expect(center.info.title == "Song")
    }

    @Test func aNewOwnerStartsEmpty() throws {
        let center = owned()
        _ = try center.setInfo(playing(), artworkBytes: nil, from: "org.example.radio")
        _ = try center.setQueue([QueueItem(key: "a")], current: 0, from: "org.example.radio")
        #expect(center.transfer(to: "org.example.podcasts") == .owner)
        #expect(center.info == NowPlayingInfo())
        #expect(center.queue.items.isEmpty)
        #expect(center.transfer(to: "org.example.podcasts") == [])
    }

    @Test(arguments: [(0.0, 10.0), (1.0, 15.0), (2.0, 20.0)])
    func elapsedIsExtrapolatedAtTheRate(rate: Double, expected: Double) {
        let info = playing(rate: rate, at: 1_000)
        #expect(info.elapsed(at: 1_000) == 10)
        #expect(info.elapsed(at: 6_000) == expected)
    }

    @Test func elapsedStopsAtTheDurationAndWhilePaused() {
        var info = playing(duration: 12)
        #expect(info.elapsed(at: 60_000) == 12)
        info.setPosition(elapsed: 11, rate: 1, state: .paused, now: 2_000)
        #expect(info.elapsed(at: 60_000) == 11)
        #expect(info.effectiveRate == 0)
    }

    @Test func aLiveStreamHasNoDuration() throws {
        let center = owned()
        var info = playing(duration: 30)
        info.isLive = true
        _ = try center.setInfo(info, artworkBytes: nil, from: "org.example.radio")
        #expect(center.info.duration == nil)
        #expect(center.info.elapsed(at: 1_000_000) > 30)
    }

    @Test func aPositionTheExtrapolationPredictsIsNotNewsButASeekIs() throws {
        let center = owned()
        _ = try center.setInfo(playing(at: 0), artworkBytes: nil, from: "org.example.radio")
        #expect(try center.setPosition(elapsed: 20.2, rate: 1, state: .playing, from: "org.example.radio", now: 10_000) == [])
        #expect(try center.setPosition(elapsed: 45, rate: 1, state: .playing, from: "org.example.radio", now: 11_000) == .info)
        #expect(try center.setPosition(elapsed: 45, rate: 0, state: .paused, from: "org.example.radio", now: 11_000) == .info)
        #expect(throws: NowPlayingError.invalid("rate must be a finite number from -16 to 16")) {
            try center.setPosition(elapsed: 1, rate: .nan, state: .playing, from: "org.example.radio", now: 0)
        }
    }

    @Test func queueIdsAreStableAndNeverReused() throws {
        let center = owned()
        _ = try center.setQueue([QueueItem(key: "a"), QueueItem(key: "b")], current: 0, from: "org.example.radio")
        let ids = center.queue.items.map(\.id)
        #expect(ids == [1, 2])
        _ = try center.setQueue([QueueItem(key: "b"), QueueItem(key: "c")], current: 1, from: "org.example.radio")
        #expect(center.queue.items.map(\.id) == [2, 3])
        _ = try center.setQueue([QueueItem(key: "a")], current: nil, from: "org.example.radio")
        #expect(center.queue.items.map(\.id) == [4])
        #expect(center.queue.upNext.count == 1)
    }

    @Test func theQueueIsValidatedAndLeftAsItWasWhenRefused() throws {
        let center = owned()
        center.limits.maxQueueItems = 3
        _ = try center.setQueue([QueueItem(key: "a")], current: 0, from: "org.example.radio")
        #expect(throws: NowPlayingError.invalid("queue item id \"x\" appears twice; ids must be unique")) {
            try center.setQueue([QueueItem(key: "x"), QueueItem(key: "x")], current: nil, from: "org.example.radio")
        }
        #expect(throws: NowPlayingError.invalid("queue index 2 is out of range: the queue has 2 item(s), 0 to 1; pass -1 for none")) {
            try center.setQueue([QueueItem(key: "x"), QueueItem(key: "y")], current: 2, from: "org.example.radio")
        }
        #expect(throws: NowPlayingError.limit("a queue of 4 items is over the limit of 3 (nowPlaying.maxQueueItems)")) {
            try center.setQueue((0..<4).map { QueueItem(key: "\($0)") }, current: nil, from: "org.example.radio")
        }
        #expect(throws: NowPlayingError.invalid("queue index 5 is out of range: the queue has 1 item(s), 0 to 0; pass -1 for none")) {
            try center.selectQueueItem(5, from: "org.example.radio")
        }
        #expect(center.queue.items.map(\.key) == ["a"])
        #expect(center.queue.currentIndex == 0)
    }

    @Test func artworkMustBeAPNGOrAJPEGWithinTheLimit() throws {
        let center = owned()
        center.limits.maxArtworkBytes = 1_024
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]
        _ = try center.setInfo(playing(), artworkBytes: png, from: "org.example.radio")
        #expect(center.artwork?.mimeType == "image/png")
        #expect(center.info.artworkID == center.artwork?.id)
        _ = try center.setInfo(playing(), artworkBytes: [0xFF, 0xD8, 0xFF, 0xE0], from: "org.example.radio")
        #expect(center.artwork?.mimeType == "image/jpeg")
        #expect(throws: NowPlayingError.invalid("artwork must be PNG or JPEG bytes (its first bytes are neither signature)")) {
            try center.setInfo(playing(), artworkBytes: Array("GIF89a".utf8), from: "org.example.radio")
        }
        #expect(throws: NowPlayingError.limit("artwork of 2048 bytes is over the limit of 1024 (nowPlaying.maxArtworkBytes)")) {
            try center.setInfo(playing(), artworkBytes: png + [UInt8](repeating: 0, count: 2_038), from: "org.example.radio")
        }
        #expect(center.artwork?.mimeType == "image/jpeg")
    }

    /// A station's picture sent again with each new title keeps its id: the same info is no news,
    /// and a reader holding the picture by id need not fetch it again.
    @Test func theSameArtworkAgainKeepsItsID() throws {
        let center = owned()
        let cover: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]
        _ = try center.setInfo(playing(), artworkBytes: cover, from: "org.example.radio")
        let id = try #require(center.artwork?.id)
        #expect(try center.setInfo(playing(), artworkBytes: cover, from: "org.example.radio") == [])
        var next = playing()
        next.title = "Next song"
        #expect(try center.setInfo(next, artworkBytes: cover, from: "org.example.radio") == .info)
        #expect(center.artwork?.id == id && center.info.artworkID == id)
        _ = try center.setInfo(next, artworkBytes: cover + [4], from: "org.example.radio")
        #expect(center.artwork?.id != id, "other bytes are another picture")
        _ = try center.setInfo(next, artworkBytes: nil, from: "org.example.radio")
        _ = try center.setInfo(next, artworkBytes: cover, from: "org.example.radio")
        #expect(center.artwork?.id != id, "a picture dropped and given again is new")
    }

    @Test func overlongTextIsRefusedNamingTheField() throws {
        let center = owned()
        var info = playing()
        info.album = String(repeating: "é", count: 600)
        #expect(throws: NowPlayingError.limit("album of 1200 bytes is over the limit of 1024 (nowPlaying.maxStringBytes)")) {
            try center.setInfo(info, artworkBytes: nil, from: "org.example.radio")
        }
        #expect(center.info.title == nil)
    }

    @Test func clearEmptiesButKeepsTheOwner() throws {
        let center = owned()
        _ = try center.setInfo(playing(), artworkBytes: nil, from: "org.example.radio")
        #expect(try center.clear(from: "org.example.radio") == .owner)
        #expect(center.owner == "org.example.radio")
        #expect(center.info.title == nil)
    }

    /// Extrapolated from the longest position, a live item still never reads past it.
    @Test func elapsedNeverPassesTheLongestPosition() {
        var info = NowPlayingInfo()
        info.setPosition(elapsed: 1e9, rate: 1, state: .playing, now: 1_000)
        #expect(info.elapsed(at: 61_000) == 1e9)
        #expect(info.elapsed(at: 1_000) == 1e9)
    }

}
